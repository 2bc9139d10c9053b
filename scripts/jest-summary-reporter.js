// Ends a jest run with one plain line, `tests: N passed, N failed, N skipped`, that any reader can parse.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(
      `\ntests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
