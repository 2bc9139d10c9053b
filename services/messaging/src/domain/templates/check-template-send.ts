import { AppError } from '@switchboard/service-kit';
import type { TemplateStore } from '../../data-access/template-store';
import type { OutboundContent } from '../sending/build-provider-message';
import { checkTemplateParameters } from './template-rules';

type TemplateContent = Extract<OutboundContent, { kind: 'template' }>;

/**
 * A template send is refused here, before any quota or provider call, when the
 * organization has no such template, it is not APPROVED, or the parameters do not fit it.
 */
export async function checkTemplateSendable(
  templates: Pick<TemplateStore, 'find'>,
  company_id: number,
  content: TemplateContent,
): Promise<void> {
  const template = await templates.find(company_id, content.name, content.language);
  if (!template) {
    throw new AppError(
      'not_found',
      `template_name: no template ${content.name} in ${content.language}`,
    );
  }
  if (template.status !== 'APPROVED') {
    throw new AppError(
      'validation_failed',
      `template_name: ${content.name} (${content.language}) is ${template.status}; only APPROVED templates can be sent`,
    );
  }
  checkTemplateParameters(
    {
      name: template.name,
      parameter_format: template.parameter_format,
      components: JSON.parse(template.components_json) as Record<string, unknown>[],
    },
    content.components as Record<string, unknown>[],
  );
}
