import { loadConfig } from '../../src/config';

describe('simulator configuration', () => {
  it('when the environment is empty, then the defaults apply', () => {
    const config = loadConfig({});

    expect(config).toMatchObject({ port: 8090, host: '127.0.0.1', logLevel: 'info' });
    expect(config.simulator).toMatchObject({
      accessTokens: [],
      statusDelaysMs: [100, 200, 300],
      throughputPerSecond: 80,
      enforceServiceWindow: false,
    });
  });

  it('when lists, flags and channels are given, then they are parsed', () => {
    const config = loadConfig({
      SIM_ACCESS_TOKEN: 'a, b',
      SIM_STATUS_DELAYS_MS: '5,10',
      SIM_ENFORCE_SERVICE_WINDOW: 'true',
      SIM_CHANNELS: JSON.stringify([
        {
          phone_number_id: '1',
          waba_id: '2',
          access_token: 't',
          app_secret: 's',
          webhook_url: 'http://127.0.0.1:8085/webhook/svc/receive/x',
          display_phone_number: '15550001111',
          verified_name: 'Demo',
        },
      ]),
    });

    expect(config.simulator).toMatchObject({
      accessTokens: ['a', 'b'],
      statusDelaysMs: [5, 10],
      enforceServiceWindow: true,
      channels: [expect.objectContaining({ phone_number_id: '1' })],
    });
  });

  it('when a value is invalid, then loading fails before anything listens', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ SIM_STATUS_DELAYS_MS: '1,x' })).toThrow(/SIM_STATUS_DELAYS_MS/);
    expect(() => loadConfig({ SIM_CHANNELS: '{' })).toThrow(/SIM_CHANNELS/);
  });
});
