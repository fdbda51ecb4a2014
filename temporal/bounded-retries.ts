import {
  InterceptingCall,
  Metadata,
  RequesterBuilder,
  status as grpcStatus,
  type InterceptingListener,
  type Interceptor,
  type NextCall,
  type StatusObject,
} from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, type GrpcRetryOptions } from '@temporalio/client';

/** The client's retrying of failed gRPC calls, and how to end it when the connection closes. */
export type BoundedRetries = {
  /** For `Connection.connect({ interceptors: [interceptor] })`, in place of the SDK's default. */
  interceptor: Interceptor;
  /** Ends every call waiting to try again at once, with its last status; no call tries again after. */
  stop(): void;
};

/**
 * The Temporal client's retries of failed gRPC calls: the SDK's back-off and retryable codes
 * (`defaultGrpcRetryOptions`), bounded by the call. The SDK's own interceptor waits out its
 * back-off (up to 5 s) even past the call's deadline, so a start with a 3 s deadline took up to
 * 6 s while Temporal was down, and a retry timer still set when the connection closed threw
 * "Channel has been shut down" from the timer (issue 45). Here a call never waits past its
 * deadline (it ends there with its last status), a cancelled call (an abort signal) ends at once,
 * and `stop()` ends the waiting ones, so no timer outlives the call or the connection.
 */
export function boundedRetries(retry: GrpcRetryOptions = defaultGrpcRetryOptions()): BoundedRetries {
  // Calls waiting to try again: each ends with its last status when called.
  const waiting = new Set<(status?: StatusObject) => void>();
  let stopped = false;

  const interceptor: Interceptor = (options, nextCall) => {
    const deadlineAtMs = options.deadline === undefined ? Infinity : new Date(options.deadline).getTime();
    let request: unknown;
    let cancelled = false;
    // The attempt after the first, while it runs; and how to end the call while it waits for one.
    let retried: ReturnType<NextCall> | null = null;
    let endWait: ((status?: StatusObject) => void) | null = null;

    const requester = new RequesterBuilder()
      .withStart((metadata, listener, next) => {
        let attempt = 1;
        let response: { message: unknown } | null = null;
        let ended = false;
        const end = (status: StatusObject) => {
          if (ended) return;
          ended = true;
          retried = null;
          if (response) listener.onReceiveMessage(response.message);
          listener.onReceiveStatus(status);
        };
        // An intercepting listener (`onReceiveMetadata` of one parameter): grpc-js calls it as is.
        const attemptListener = (forwardMetadata: boolean): InterceptingListener => ({
          onReceiveMetadata: (received) => void (forwardMetadata && listener.onReceiveMetadata(received)),
          onReceiveMessage: (message) => void (response = { message }),
          onReceiveStatus: (status) => afterAttempt(status),
        });
        const afterAttempt = (status: StatusObject) => {
          retried = null;
          const remainingMs = deadlineAtMs - Date.now();
          if (stopped || cancelled || remainingMs <= 0 || !retry.retryableDecider(attempt, status)) return end(status);
          const delayMs = retry.delayFunction(attempt, status);
          // The wait never passes the deadline: the call ends there, with the status it has.
          const timer = setTimeout(tryAgain, Math.min(delayMs, remainingMs), delayMs >= remainingMs, status);
          endWait = (ending = status) => {
            clearTimeout(timer);
            settleWait();
            end(ending);
          };
          waiting.add(endWait);
        };
        const settleWait = () => {
          if (endWait) waiting.delete(endWait);
          endWait = null;
        };
        const tryAgain = (atDeadline: boolean, last: StatusObject) => {
          settleWait();
          if (atDeadline || stopped || cancelled) return end(last);
          attempt += 1;
          response = null;
          let call: ReturnType<NextCall>;
          try {
            call = nextCall(options);
          } catch {
            // The channel closed meanwhile: the call ends as its last attempt did.
            return end(last);
          }
          retried = call;
          call.start(metadata, attemptListener(false));
          call.sendMessage(request);
          call.halfClose();
        };
        next(metadata, attemptListener(true));
      })
      .withSendMessage((message, next) => {
        request = message;
        next(message);
      })
      .withCancel((next) => {
        cancelled = true;
        if (endWait) endWait({ code: grpcStatus.CANCELLED, details: 'Cancelled on client', metadata: new Metadata() });
        else if (retried) retried.cancelWithStatus(grpcStatus.CANCELLED, 'Cancelled on client');
        else next();
      })
      .build();
    return new InterceptingCall(nextCall(options), requester);
  };

  return {
    interceptor,
    stop() {
      stopped = true;
      for (const end of [...waiting]) end();
    },
  };
}
