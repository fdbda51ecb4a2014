import { Agent as HttpAgent, type AgentOptions, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { checkDestinationAddress, isIpLiteral } from '../../domain/outbound/address-policy.ts';
import { resolvePinnedTarget, type DestinationLookup } from './pinned-destination.ts';

/**
 * Node http and https agents for libraries that make their own requests (the AWS SDK's S3
 * client), under the same rule as webhooks and MCP: "Destinations must resolve only to public
 * addresses; the connection is pinned to the checked address." Every new connection resolves its
 * host once (`resolvePinnedTarget`: every answer checked unless private networks are allowed) and
 * the socket can only dial the checked address; a literal address, which Node never looks up, is
 * checked before the socket is made. A refusal fails the request with `DestinationBlockedError`,
 * whose message is a fixed phrase (never the host, a path or a header).
 */
export type CheckedAgentPolicy = { allowPrivateNetwork: boolean; lookup?: DestinationLookup };

/** A destination refused by the address policy; `reason` is a fixed phrase safe to show. */
export class DestinationBlockedError extends Error {
  readonly code = 'EDESTINATIONBLOCKED';
  readonly reason: string;
  constructor(subject: string, reason: string) {
    super(`The ${subject} is not allowed (${reason})`);
    this.name = 'DestinationBlockedError';
    this.reason = reason;
  }
}

// getaddrinfo cannot be cancelled; a connection stops waiting for it after this long.
const LOOKUP_TIMEOUT_MS = 15_000;

/** One http and one https agent (keep-alive, as the SDK's own) for `subject` ("storage endpoint"). */
export function checkedAgents(policy: CheckedAgentPolicy, subject: string): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } {
  const options: AgentOptions = { keepAlive: true, maxSockets: 50, lookup: checkedLookup(policy, subject) };
  const literalRefusal = (host: string | null | undefined): Error | null => {
    if (policy.allowPrivateNetwork || !host || !isIpLiteral(host)) return null;
    const verdict = checkDestinationAddress(host.replace(/^\[(.*)\]$/, '$1'));
    return verdict.allowed ? null : new DestinationBlockedError(subject, verdict.reason);
  };
  return { httpAgent: refusingLiterals(new HttpAgent(options), literalRefusal), httpsAgent: refusingLiterals(new HttpsAgent(options), literalRefusal) };
}

type CreateConnection = (request: ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void) => Duplex | null | undefined;

/** The agent, with a literal address checked before each socket is made (Node never looks one up). */
function refusingLiterals<T extends HttpAgent>(agent: T, refusalFor: (host: string | null | undefined) => Error | null): T {
  const create = (agent as unknown as { createConnection: CreateConnection }).createConnection.bind(agent);
  const checked: CreateConnection = (request, callback) => {
    const refusal = refusalFor(request.host ?? request.hostname);
    if (!refusal) return create(request, callback);
    process.nextTick(() => callback?.(refusal, undefined as unknown as Duplex));
    return undefined;
  };
  (agent as unknown as { createConnection: CreateConnection }).createConnection = checked;
  return agent;
}

// net.connect asks for `all` when autoSelectFamily is on (Node's default) and for one address
// otherwise; either way the only answer is the checked one.
function checkedLookup(policy: CheckedAgentPolicy, subject: string): LookupFunction {
  return (hostname, options, callback) => {
    resolvePinnedTarget(hostname, policy, AbortSignal.timeout(LOOKUP_TIMEOUT_MS)).then(
      (target) => {
        if ('kind' in target) {
          const error =
            target.kind === 'destination_blocked'
              ? new DestinationBlockedError(subject, target.reason)
              : Object.assign(new Error(`The ${subject} cannot be reached (${target.kind === 'connection_failed' ? target.reason : 'timeout'})`), {
                  code: 'ENOTFOUND',
                });
          return callback(error, '', 0);
        }
        if (options.all) callback(null, [{ address: target.address, family: target.family }]);
        else callback(null, target.address, target.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}
