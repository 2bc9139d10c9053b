export const IMAGES: { mongodb: string; rabbitmq: string };

export interface InfrastructureChoice {
  kind: 'local' | 'testcontainers';
  reason: string;
}

export function chooseInfrastructure(
  requested: string | undefined,
  dockerAnswers: () => Promise<{ answers: true } | { answers: false; why: string }>,
): Promise<InfrastructureChoice>;

export function describeInfrastructure(env?: Record<string, string | undefined>): string;

export function localUrls(env?: Record<string, string | undefined>): {
  MONGODB_URL: string;
  AMQP_URL: string;
};
