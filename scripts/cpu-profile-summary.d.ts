export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}
export function moduleOf(url: string): string;
export function summarize(profile: CpuProfile): {
  total: number;
  byFunction: Map<string, number>;
  byModule: Map<string, number>;
  byCaller: Map<string, number>;
};
export function top(
  map: Map<string, number>,
  total: number,
  n: number,
): { name: string; 'self ms': number; '%': number }[];
