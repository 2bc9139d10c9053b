import Ajv from 'ajv';

/**
 * The operators' custom resources as k8s/ uses them, checked offline. Their CRDs are not
 * vendored here: these schemas hold the fields of the operators' published APIs that the
 * manifests set (RabbitMQ Cluster Operator `rabbitmq.com/v1beta1`, MongoDB Community Operator
 * `mongodbcommunity.mongodb.com/v1`), typed as the operators type them, and refuse any other
 * field, so that a misspelt or misplaced field fails the test instead of being ignored by
 * the API server's pruning.
 */
const quantity = { anyOf: [{ type: 'string', pattern: '^[0-9.]+[A-Za-z]*$' }, { type: 'number' }] };
const resources = {
  type: 'object',
  additionalProperties: false,
  properties: {
    requests: { type: 'object', additionalProperties: quantity },
    limits: { type: 'object', additionalProperties: quantity },
  },
};
const metadata = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1 }, namespace: { type: 'string' } },
};

const rabbitmqCluster = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  additionalProperties: false,
  properties: {
    apiVersion: { const: 'rabbitmq.com/v1beta1' },
    kind: { const: 'RabbitmqCluster' },
    metadata,
    spec: {
      type: 'object',
      additionalProperties: false,
      required: ['replicas'],
      properties: {
        replicas: { type: 'integer', minimum: 0 },
        image: { type: 'string' },
        resources,
        persistence: {
          type: 'object',
          additionalProperties: false,
          properties: { storage: quantity, storageClassName: { type: 'string' } },
        },
        rabbitmq: {
          type: 'object',
          additionalProperties: false,
          properties: {
            additionalConfig: { type: 'string', maxLength: 100_000 },
            additionalPlugins: { type: 'array', items: { type: 'string' } },
          },
        },
        // A core Affinity: the operator passes it to its pods unchanged.
        affinity: { type: 'object' },
      },
    },
  },
};

const mongoDbCommunity = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  additionalProperties: false,
  properties: {
    apiVersion: { const: 'mongodbcommunity.mongodb.com/v1' },
    kind: { const: 'MongoDBCommunity' },
    metadata,
    spec: {
      type: 'object',
      additionalProperties: false,
      required: ['members', 'type', 'version', 'security', 'users'],
      properties: {
        members: { type: 'integer', minimum: 1 },
        type: { enum: ['ReplicaSet'] },
        version: { type: 'string', pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$' },
        security: {
          type: 'object',
          additionalProperties: false,
          properties: {
            authentication: {
              type: 'object',
              additionalProperties: false,
              required: ['modes'],
              properties: {
                modes: {
                  type: 'array',
                  items: { enum: ['SCRAM', 'SCRAM-SHA-1', 'SCRAM-SHA-256', 'X509'] },
                },
              },
            },
          },
        },
        users: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'db', 'passwordSecretRef', 'roles', 'scramCredentialsSecretName'],
            properties: {
              name: { type: 'string' },
              db: { type: 'string' },
              passwordSecretRef: {
                type: 'object',
                additionalProperties: false,
                required: ['name'],
                properties: { name: { type: 'string' }, key: { type: 'string' } },
              },
              roles: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['name', 'db'],
                  properties: { name: { type: 'string' }, db: { type: 'string' } },
                },
              },
              scramCredentialsSecretName: { type: 'string', pattern: '^[a-z0-9-]+$' },
            },
          },
        },
        additionalMongodConfig: { type: 'object' },
        // A partial StatefulSet spec the operator merges into its own.
        statefulSet: {
          type: 'object',
          additionalProperties: false,
          required: ['spec'],
          properties: { spec: { type: 'object' } },
        },
      },
    },
  },
};

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = {
  'rabbitmq.com/v1beta1/RabbitmqCluster': ajv.compile(rabbitmqCluster),
  'mongodbcommunity.mongodb.com/v1/MongoDBCommunity': ajv.compile(mongoDbCommunity),
};

/** A model class per operator kind, shaped like kubernetes-models' (construct, then validate). */
export const OPERATOR_MODELS = Object.fromEntries(
  Object.entries(validators).map(([kind, validate]) => [
    kind,
    class {
      constructor(private readonly data: unknown) {}
      validate(): void {
        if (!validate(this.data)) throw new Error(ajv.errorsText(validate.errors));
      }
    },
  ]),
) as Record<string, new (data: never) => { validate(): void }>;
