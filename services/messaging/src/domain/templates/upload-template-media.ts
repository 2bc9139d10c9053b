import axios from 'axios';
import http from 'node:http';
import https from 'node:https';
import { TEMPLATE_MEDIA_RULES, type TemplateMediaType } from '@switchboard/contracts';
import {
  AppError,
  publicAddressLookup,
  resolveAll,
  urlPolicyViolation,
  withheldTraceContext,
  type DnsLookup,
} from '@switchboard/service-kit';
import type { MediaUpload } from '../../outbound/cloud-api';
import type { TemplateDeps } from './manage-templates';
import { providerError } from './manage-templates';

const FETCH_TIMEOUT_MS = 10_000;

export interface MediaFetchPolicy {
  /** Largest file fetched or accepted. */
  maxBytes: number;
  /** Development and tests: URLs on private addresses and plain http are allowed. */
  allowPrivateUrls: boolean;
  /** The name service (tests answer with their own addresses); `dns.lookup` by default. */
  dnsLookup?: DnsLookup;
}

const baseType = (mimeType: string) => mimeType.split(';')[0]!.trim().toLowerCase();

/** The provider's type and size rules for header examples (as the Cloud API documents it). */
export function checkTemplateMedia(media: MediaUpload): void {
  const type = baseType(media.mimeType);
  const rule = TEMPLATE_MEDIA_RULES[type as TemplateMediaType];
  if (!rule) {
    throw new AppError(
      'validation_failed',
      `file: ${type || 'this type'} is not accepted; use ${Object.keys(TEMPLATE_MEDIA_RULES).join(', ')}`,
    );
  }
  if (media.buffer.length === 0) throw new AppError('validation_failed', 'file: is empty');
  if (media.buffer.length > rule.maxBytes) {
    throw new AppError(
      'payload_too_large',
      `file: a ${type} header may be at most ${rule.maxBytes / (1024 * 1024)} MB`,
    );
  }
}

/**
 * Downloads a header example from the customer's URL. The URL must pass the same policy as
 * webhook URLs (https, public addresses only): it is fetched from inside our network. The
 * connection resolves the name again through a lookup that refuses non-public addresses, so a
 * name that answers differently the second time (DNS rebinding) cannot reach inside.
 */
export async function fetchTemplateMedia(
  url: string,
  policy: MediaFetchPolicy,
): Promise<MediaUpload> {
  const violation = await urlPolicyViolation(url, {
    allowPrivate: policy.allowPrivateUrls,
    resolve: (host) => resolveAll(host, policy.dnsLookup),
  });
  if (violation) throw new AppError('validation_failed', `url: ${violation}`);
  const lookup = policy.allowPrivateUrls
    ? undefined
    : publicAddressLookup('template media', policy.dnsLookup);
  let response;
  try {
    // The customer's server gets no trace context of ours.
    response = await withheldTraceContext(() =>
      axios.get<ArrayBuffer>(url, {
        responseType: 'arraybuffer',
        timeout: FETCH_TIMEOUT_MS,
        maxContentLength: policy.maxBytes,
        maxRedirects: 0,
        validateStatus: () => true,
        // A proxy from the environment would do its own lookup.
        proxy: false,
        httpAgent: new http.Agent({ lookup }),
        httpsAgent: new https.Agent({ lookup }),
      }),
    );
  } catch (error) {
    const tooLarge = /maxContentLength/i.test(String((error as Error).message));
    throw tooLarge
      ? new AppError('payload_too_large', `url: the file is larger than ${policy.maxBytes} bytes`)
      : new AppError(
          'validation_failed',
          `url: could not be fetched (${(error as Error).message})`,
        );
  }
  if (response.status < 200 || response.status >= 300) {
    throw new AppError('validation_failed', `url: answered HTTP ${response.status}`);
  }
  const name = new URL(url).pathname.split('/').pop() || 'header';
  return {
    buffer: Buffer.from(response.data),
    mimeType: baseType(String(response.headers['content-type'] ?? '')),
    filename: name,
  };
}

/** uploadTemplateMedia: checked against the provider's limits, then uploaded for a handle. */
export async function uploadTemplateMedia(
  deps: TemplateDeps,
  company_id: number,
  media: MediaUpload,
): Promise<{ handle: string; mime_type: string; file_size: number }> {
  checkTemplateMedia(media);
  const channel = await deps.channels.find(company_id);
  if (!channel) {
    throw new AppError('dependency_unavailable', 'This organization has no messaging channel');
  }
  const uploaded = await deps.cloudApi
    .forChannel(channel)
    .uploadTemplateMedia({ ...media, mimeType: baseType(media.mimeType) });
  if (!uploaded.ok) throw providerError(uploaded.failure);
  return {
    handle: uploaded.data.handle,
    mime_type: baseType(media.mimeType),
    file_size: media.buffer.length,
  };
}
