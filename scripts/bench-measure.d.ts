export interface ProcStat {
  comm: string;
  cpuMs: number;
}
export type CpuSnapshot = Map<number, ProcStat>;

export const INFRA_GROUPS: Record<string, string>;
export function parseProcStat(text: string): ProcStat | undefined;
export function snapshotCpu(): CpuSnapshot;
export function cpuBetween(
  before: CpuSnapshot,
  after: CpuSnapshot,
  named: Map<number | undefined, string>,
): { groups: Map<string, number>; others: { pid: number; comm: string; cpuMs: number }[] };
export function cpuPerSend(
  groups: Map<string, number>,
  ourGroups: string[],
  sends: number,
): {
  total: number;
  ours: number;
  byProcess: { process: string; 'cpu ms': number; 'ms per send': number }[];
};
export function cpuLine(figures: { total: number; ours: number }): string;
export function counterByLabel(
  text: string,
  metric: string,
  label: string | string[],
): Map<string, number>;
export function growth(
  before: Map<string, number>,
  after: Map<string, number>,
): Map<string, number>;
