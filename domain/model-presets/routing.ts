import * as v from 'valibot';

const MESSAGE_SLUGS = 'must be 1-16 unique provider slugs';
const ProviderSlug = v.pipe(
  v.string('each entry must be a provider slug'),
  v.regex(/^[a-z0-9][a-z0-9._/-]{0,99}$/, 'each entry must be a provider slug such as "anthropic" or "deepinfra/fp8"'),
);
const SlugList = v.pipe(
  v.array(ProviderSlug, MESSAGE_SLUGS),
  v.minLength(1, MESSAGE_SLUGS),
  v.maxLength(16, MESSAGE_SLUGS),
  v.check((list) => new Set(list).size === list.length, MESSAGE_SLUGS),
);
const PriceCap = v.pipe(
  v.number('must be a number from 0 to 1,000,000'),
  v.finite('must be a number from 0 to 1,000,000'),
  v.minValue(0, 'must be a number from 0 to 1,000,000'),
  v.maxValue(1_000_000, 'must be a number from 0 to 1,000,000'),
);

/**
 * The gateway routing policy (spec 2 "Routing policy"): every field optional, unknown fields
 * refused, and a slug may not be both allowed and denied.
 */
export const GatewayRouting = v.pipe(
  v.strictObject(
    {
      allowFallbacks: v.optional(v.boolean('must be a boolean')),
      requireParameters: v.optional(v.boolean('must be a boolean')),
      dataCollection: v.optional(v.picklist(['deny', 'allow'], 'must be deny or allow')),
      zeroDataRetention: v.optional(v.boolean('must be a boolean')),
      providerOrder: v.optional(SlugList),
      providerAllowlist: v.optional(SlugList),
      providerDenylist: v.optional(SlugList),
      sort: v.optional(v.picklist(['price', 'throughput', 'latency'], 'must be price, throughput or latency')),
      maxPromptPriceUsdPerMillion: v.optional(PriceCap),
      maxCompletionPriceUsdPerMillion: v.optional(PriceCap),
    },
    'routing must be an object with known routing fields only',
  ),
  v.forward(
    v.check(
      (routing) => !routing.providerAllowlist?.some((slug) => routing.providerDenylist?.includes(slug)),
      'a provider slug cannot be in both providerAllowlist and providerDenylist',
    ),
    ['providerDenylist'],
  ),
);
export type GatewayRouting = v.InferOutput<typeof GatewayRouting>;

/** vendor_a, vendor_b and vendor_c presets take no routing: exactly `{}`. */
export const EmptyRouting = v.strictObject({}, 'routing must be an empty object for this provider type');
