export type ServiceProcessName =
  | 'gateway'
  | 'messaging'
  | 'contacts'
  | 'campaigns'
  | 'webhooks'
  | 'inbound'
  | 'provider-simulator';

export interface LaunchOptions {
  env: Record<string, string>;
  basePort?: number;
  onLine?: (service: ServiceProcessName, line: string) => void;
  readyTimeoutMs?: number;
}

export interface LaunchedSystem {
  urls: Record<ServiceProcessName, string>;
  ports: Record<ServiceProcessName, number>;
  startService(name: ServiceProcessName): Promise<void>;
  stopService(name: ServiceProcessName, timeoutMs?: number): Promise<void>;
  /** kill -9: no graceful shutdown, in-flight work is cut off. */
  killService(name: ServiceProcessName): Promise<void>;
  stop(): Promise<void>;
}

export const SERVICES: ServiceProcessName[];
export const PORT_SPAN: number;
export function launchSystem(options: LaunchOptions): Promise<LaunchedSystem>;
export function portsFrom(basePort: number): Record<ServiceProcessName, number>;
