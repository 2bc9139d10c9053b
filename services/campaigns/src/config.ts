import { z } from 'zod';
import { baseConfigShape, loadConfig, portSchema } from '@switchboard/service-kit';

export const campaignsConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8083),
});

export type CampaignsConfig = z.infer<typeof campaignsConfigSchema>;

export const loadCampaignsConfig = (env = process.env) => loadConfig(campaignsConfigSchema, env);
