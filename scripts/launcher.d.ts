export type ServiceProcessName =
  | 'gateway'
  | 'messaging'
  | 'contacts'
  | 'campaigns'
  | 'webhooks'
  | 'inbound'
  | 'provider-simulator';

export interface RestartPolicyOptions {
  firstDelayMs?: number;
  maxDelayMs?: number;
  stableAfterMs?: number;
  maxCrashes?: number;
  windowMs?: number;
}

export interface LaunchOptions {
  env: Record<string, string>;
  basePort?: number;
  onLine?: (service: ServiceProcessName, line: string) => void;
  readyTimeoutMs?: number;
  /** Restart a process that exits unasked (`npm start`); off by default. */
  supervise?: boolean | RestartPolicyOptions;
  /** The processes to start (default: all), e.g. a second replica of the services without the simulator. */
  only?: ServiceProcessName[];
  /** Processes per service (default 1); the extra ones listen after the system's port span. */
  replicas?: Partial<Record<ServiceProcessName, number>>;
}

export interface LaunchedSystem {
  urls: Record<ServiceProcessName, string>;
  ports: Record<ServiceProcessName, number>;
  startService(name: ServiceProcessName): Promise<void>;
  /** Stopped on purpose: never restarted by supervision. */
  stopService(name: ServiceProcessName, timeoutMs?: number): Promise<void>;
  /** kill -9: no graceful shutdown, in-flight work is cut off; never restarted by supervision. */
  killService(name: ServiceProcessName): Promise<void>;
  /** The running process's id (to kill it from outside, as a crash would). */
  pidOf(name: ServiceProcessName): number | undefined;
  /** The running extra processes of the `replicas` option. */
  replicas(): { name: ServiceProcessName; pid: number; url: string }[];
  stop(): Promise<void>;
}

export const SERVICES: ServiceProcessName[];
export const PORT_SPAN: number;
export function launchSystem(options: LaunchOptions): Promise<LaunchedSystem>;
export function portsFrom(basePort: number): Record<ServiceProcessName, number>;
