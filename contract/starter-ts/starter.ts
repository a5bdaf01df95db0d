// Start a FilmRender as an order API in TypeScript would: node dist/starter.js ORDER.json
// Validates the order against ../film-order.schema.json, seals it with the codec of
// ../codec.md (FILM_PAYLOAD_KEYS), starts it with the names of ../names.json, polls the
// progress query and prints the outcome, each answer checked against its schema.
// TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE as the workers. `node dist/starter.js --check-schemas`
// only compiles the schemas. Ajv runs in strict mode and any warning of it is an error.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { Client, Connection } from "@temporalio/client";
import { defineSearchAttributeKey, type Payload, type PayloadCodec } from "@temporalio/common";
import { temporal } from "@temporalio/proto";

const read = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const contract = (name: string) => read(join(__dirname, "..", "..", name));
const names = contract("names.json"), codec = names.payload_codec;
const keys = new Map((process.env[codec.keys_env] ?? "").split(",").filter(Boolean)
  .map((entry): [string, Buffer] => { const [id, key] = entry.trim().split(":");
    return [id, Buffer.from(key, "base64")]; }));
const sealWith = process.env[codec.key_id_env] || [...keys.keys()][0];
const PayloadProto = temporal.api.common.v1.Payload;

class AesGcmCodec implements PayloadCodec { // key id = AAD: see ../codec.md
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const nonce = randomBytes(codec.nonce_bytes), id = Buffer.from(sealWith, "utf8");
      const cipher = createCipheriv("aes-256-gcm", keys.get(sealWith)!, nonce).setAAD(id);
      const plain = PayloadProto.encode(payload).finish();
      const data = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { encoding: Buffer.from(codec.encoding), [codec.key_id_metadata]: id }, data };
    });
  }
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (Buffer.from(payload.metadata?.encoding ?? []).toString() !== codec.encoding) return payload;
      const id = Buffer.from(payload.metadata![codec.key_id_metadata]), data = Buffer.from(payload.data!);
      const decipher = createDecipheriv("aes-256-gcm", keys.get(id.toString())!, data.subarray(0, codec.nonce_bytes));
      decipher.setAAD(id).setAuthTag(data.subarray(data.length - 16));
      return PayloadProto.decode(Buffer.concat([decipher.update(data.subarray(codec.nonce_bytes, -16)), decipher.final()]));
    });
  }
}

const SCHEMAS = ["film-order.schema.json", "progress.schema.json", "film-outcome.schema.json"];
const ajv = new Ajv2020({ allErrors: true, strict: true, logger: { log: console.log, error: console.error,
  warn: (...args: unknown[]) => { throw new Error(`ajv warned: ${args.join(" ")}`); } } });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();
const schema = (name: string) => {
  if (!validators.has(name)) validators.set(name, ajv.compile(contract(name)));
  return validators.get(name)!;
};
const invalid = (name: string, value: unknown) => {
  const validate = schema(name);
  return validate(value) ? null : ajv.errorsText(validate.errors);
};

async function main(orderPath: string): Promise<number> {
  if (orderPath === "--check-schemas") {
    SCHEMAS.forEach(schema);
    console.log(`${SCHEMAS.length} schemas compile in strict mode`);
    return 0;
  }
  const order: Record<string, unknown> = read(orderPath), refused = invalid(SCHEMAS[0], order);
  if (refused) {
    console.error(`invalid order: ${refused}`);
    return 2;
  }
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? "localhost:7233" });
  const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? "default",
    dataConverter: keys.size ? { payloadCodecs: [new AesGcmCodec()] } : undefined });
  const fill = (template: string) => template.replace(/\{(\w+)\}/g, (_, field) => String(order[field]));
  const handle = await client.workflow.start(names.workflow_type, {
    taskQueue: process.env.FILM_TASK_QUEUE ?? names.task_queue, args: [order],
    workflowId: fill(names.workflow_id_template),
    workflowIdReusePolicy: names.workflow_id_reuse_policy, workflowIdConflictPolicy: names.workflow_id_conflict_policy,
    typedSearchAttributes: names.search_attributes.map((attribute: { name: string; type: "KEYWORD"; at_start: string }) =>
      ({ key: defineSearchAttributeKey(attribute.name, attribute.type), value: fill(attribute.at_start) })),
  });
  console.log(`started ${handle.workflowId}`);
  let finished = false, last = "";
  const result = handle.result().finally(() => { finished = true; });
  for (;;) { // until the result is in, then once more: the last progress
    const progress = await handle.query(names.query.name).catch(() => null) as { state: string; stage: string; percent: number } | null;
    const wrong = progress && invalid(SCHEMAS[1], progress);
    if (wrong) throw new Error(`progress outside progress.schema.json: ${wrong}`);
    const line = progress && `progress ${progress.state} ${progress.stage} ${progress.percent}%`;
    if (line && line !== last) console.log((last = line));
    if (finished) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const outcome = await result, wrong = invalid(SCHEMAS[2], outcome);
  console.log(`outcome ${JSON.stringify(outcome)}`);
  await connection.close();
  if (wrong) console.error(`outcome outside film-outcome.schema.json: ${wrong}`);
  return wrong ? 1 : 0;
}

main(process.argv[2]).then((code) => process.exit(code), (error) => { console.error(String(error)); process.exit(1); });
