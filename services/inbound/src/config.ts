import { z } from 'zod';
import { baseConfigShape, loadConfig, portSchema } from '@switchboard/service-kit';

export const inboundConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8085),
});

export type InboundConfig = z.infer<typeof inboundConfigSchema>;

export const loadInboundConfig = (env = process.env) => loadConfig(inboundConfigSchema, env);
