import { AppError } from '@switchboard/service-kit';
import type { TemplateStore } from '../../data-access/template-store';
import { checkTemplateParameters } from './template-rules';

/** What a template send names: the template, its language and the parameters filled in. */
export interface TemplateUse {
  name: string;
  language: string;
  components: unknown[];
}

/**
 * A template send is refused here, before any quota or provider call, when the
 * organization has no such template, it is not APPROVED, or the parameters do not fit it.
 */
export async function checkTemplateSendable(
  templates: Pick<TemplateStore, 'find'>,
  company_id: number,
  content: TemplateUse,
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
