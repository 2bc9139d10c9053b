// Ends a jest run with the infrastructure it ran on, then one plain line,
// `tests: N passed, N failed, N skipped`, that any reader can parse.
const { describeInfrastructure } = require('./test-infrastructure');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(
      `\ninfrastructure: ${describeInfrastructure()}` +
        `\ntests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
