import { GraphError, webhookError } from '../../src/domain/graph-error';

describe('Graph error bodies', () => {
  it('when a WhatsApp error is serialized, then it has message "(#code) title", error_data and fbtrace_id', () => {
    expect(new GraphError(130429).toBody()).toEqual({
      error: {
        message: '(#130429) Rate limit hit',
        type: 'OAuthException',
        code: 130429,
        error_data: {
          messaging_product: 'whatsapp',
          details: 'Cloud API message throughput has been reached.',
        },
        fbtrace_id: expect.stringMatching(/^A[\w-]{22}$/),
      },
    });
  });

  it('when an auth error is serialized, then it has no error_data and HTTP 401', () => {
    const error = new GraphError(190);

    expect(error.httpStatus).toBe(401);
    expect(error.toBody().error).not.toHaveProperty('error_data');
  });

  it.each([
    [131000, 500],
    [2, 503],
    [133004, 503],
    [368, 403],
    [131047, 400],
    [132001, 404],
  ])('when code %i is raised, then the HTTP status follows the table (%i)', (code, status) => {
    expect(new GraphError(code).httpStatus).toBe(status);
  });

  it('when an asynchronous error is built, then it has code, title, message, error_data.details and href', () => {
    expect(webhookError(131047)).toEqual({
      code: 131047,
      title: 'Re-engagement message',
      message: 'Re-engagement message',
      error_data: { details: expect.stringContaining('24 hours') },
      href: expect.stringContaining('error-codes'),
    });
  });
});
