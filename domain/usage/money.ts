/**
 * Money is kept as integer billionths ("nanos") of the installation's currency: sums stay exact
 * in `bigint` columns, and a token priced at 0.01 per million still costs a whole number
 * (10 nanos). The API shows amounts as decimal numbers of the currency.
 */
export const NANOS_PER_UNIT = 1_000_000_000;

/** The largest amount a budget may name: beyond it a billionth is no longer exact in a double. */
export const MAX_AMOUNT = 1_000_000_000;

export const nanosOf = (amount: number): number => Math.round(amount * NANOS_PER_UNIT);

/** An amount for the API: the nanos as a decimal number, exact to the billionth. */
export const amountOf = (nanos: number): number => Number((nanos / NANOS_PER_UNIT).toFixed(9));
