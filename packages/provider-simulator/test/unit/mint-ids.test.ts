import { mintNumericId, mintWamid, WAMID_PATTERN } from '../../src/domain/mint-ids';

describe('minting ids', () => {
  it('when a wamid is minted, then it is wamid. + base64 and starts like Meta ids for 11-digit numbers', () => {
    const wamid = mintWamid('16505551234');

    expect(wamid).toMatch(WAMID_PATTERN);
    expect(wamid.startsWith('wamid.HBgL')).toBe(true);
  });

  it('when a wamid is decoded, then it holds the WhatsApp id and an upper-case hex key', () => {
    const decoded = Buffer.from(mintWamid('16505551234').slice('wamid.'.length), 'base64').toString(
      'latin1',
    );

    expect(decoded).toContain('16505551234');
    expect(decoded.endsWith('\u0000')).toBe(true);
    expect(decoded.slice(-19, -1)).toMatch(/^[0-9A-F]{18}$/);
  });

  it('when incoming and outgoing wamids are minted, then their keys have Meta lengths (20 and 18)', () => {
    const key = (wamid: string) =>
      /([0-9A-F]+)$/.exec(
        Buffer.from(wamid.slice(6), 'base64').toString('latin1').slice(0, -1),
      )![1]!;

    expect(key(mintWamid('16505551234', 'incoming'))).toHaveLength(20);
    expect(key(mintWamid('16505551234', 'outgoing'))).toHaveLength(18);
  });

  it('when many wamids are minted, then they are all different', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => mintWamid('16505551234')));

    expect(ids.size).toBe(1000);
  });

  it('when a numeric id is minted, then it is 16 digits and a safe JSON integer', () => {
    const id = mintNumericId();

    expect(id).toMatch(/^1\d{15}$/);
    expect(Number.isSafeInteger(Number(id))).toBe(true);
  });
});
