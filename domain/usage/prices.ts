import * as v from 'valibot';

/**
 * A model preset's prices per million tokens, in the installation's currency (`SVC_CURRENCY`).
 * A cache price of null falls back to the input price (a provider that publishes none bills
 * cached tokens as input). `source` says whether the catalog filled them or an operator set them.
 */
export type ModelPrices = {
  input: number;
  output: number;
  cacheRead: number | null;
  cacheWrite: number | null;
  source: 'catalog' | 'operator';
};

/** The most a price per million tokens may be (the gateway's own price caps use the same bound). */
export const MAX_PRICE_PER_MILLION = 1_000_000;

const Price = (name: string) =>
  v.pipe(
    v.number(`${name} must be a number`),
    v.finite(`${name} must be a finite number`),
    v.minValue(0, `${name} must be at least 0`),
    v.maxValue(MAX_PRICE_PER_MILLION, `${name} must be at most ${MAX_PRICE_PER_MILLION.toLocaleString('en-US')}`),
  );

/** `prices` as an operator gives them: per million tokens; the cache prices may be omitted or null. */
export const PricesInput = v.strictObject({
  input: Price('prices.input'),
  output: Price('prices.output'),
  cacheRead: v.optional(v.nullable(Price('prices.cacheRead'))),
  cacheWrite: v.optional(v.nullable(Price('prices.cacheWrite'))),
});
export type PricesInput = v.InferOutput<typeof PricesInput>;

export const operatorPrices = (input: PricesInput): ModelPrices => ({
  input: input.input,
  output: input.output,
  cacheRead: input.cacheRead ?? null,
  cacheWrite: input.cacheWrite ?? null,
  source: 'operator',
});
