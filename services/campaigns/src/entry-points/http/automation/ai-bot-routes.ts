import type { Router } from 'express';
import {
  UpdateAIBotSettingsRequestSchema,
  type AIBotSettingsResponse,
} from '@switchboard/contracts';
import { operationInput, orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import {
  getAiBotSettings,
  updateAiBotSettings,
  type AiBotSettingsDeps,
} from '../../../domain/automation/ai-bot/manage-ai-bot-settings';

/** The AI bot's settings per organization; the key is never answered back. */
export function aiBotRoutes(router: Router, deps: AiBotSettingsDeps): void {
  serveOperation(router, 'getAIBotSettings', async (req, res) => {
    const { company_id } = orgContext(req);
    const settings = await getAiBotSettings(deps, company_id);
    res.json({ status: 'success', settings } satisfies AIBotSettingsResponse);
  });

  serveOperation(router, 'updateAIBotSettings', async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseInput(UpdateAIBotSettingsRequestSchema, operationInput(req));
    const settings = await updateAiBotSettings(deps, company_id, request);
    res.json({ status: 'success', settings } satisfies AIBotSettingsResponse);
  });
}
