import type { RestartPolicyOptions } from './launcher';

export type RestartDecision =
  | { restart: true; delayMs: number; crashes: number }
  | { restart: false; reason: string; crashes: number };

export interface RestartPolicy {
  onExit(run: { startedAt: number; exitedAt: number }): RestartDecision;
}

export function createRestartPolicy(options?: RestartPolicyOptions): RestartPolicy;
