import { InterceptingCall, Metadata, status, type Interceptor, type InterceptingListener } from '@grpc/grpc-js';
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions } from '@temporalio/client';

/*
 * Temporal's client retries a call that failed for a transient reason (UNAVAILABLE, …) from a timer. If the connection
 * is closed before that timer fires, the retry asks the closed gRPC channel for a new call, which throws "Channel has
 * been shut down" inside the timer: an uncaught exception that kills the process (or fails whatever jest suite runs
 * next). It happens when a client closes while its server is gone, e.g. a test that stops a dev server and then closes
 * its client, or `ragtime serve` shutting down during a Temporal restart (issue 31). Connection.close() does not clear
 * those timers; this interceptor wraps the SDK's own retry interceptor so that a retry after close ends the call with
 * CANCELLED ("the connection was closed") instead: the caller's promise rejects, nothing is thrown out of a timer.
 */

const CLOSED = /Channel has been shut down/;

/** grpc-js does not export the interface of the call an InterceptingCall wraps. */
type InterceptingCallInterface = ConstructorParameters<typeof InterceptingCall>[0];

const closedStatus = () => ({ code: status.CANCELLED, details: 'the Temporal connection was closed', metadata: new Metadata() });

/**
 * A call that never reaches the network: it ends at once, on start, with CANCELLED. The SDK's retry interceptor hands
 * a final status on through the first attempt's message callback, which it only has when that attempt received a
 * message; after a first attempt that failed before any message it throws "savedMessageNext is not a function" and
 * never settles the call. Then the caller's own listener is told instead.
 */
class ClosedConnectionCall implements InterceptingCallInterface {
  constructor(private readonly caller: () => Partial<InterceptingListener> | undefined) {}
  cancelWithStatus(): void {}
  getPeer(): string {
    return '';
  }
  start(_metadata: Metadata, listener?: Partial<InterceptingListener>): void {
    setImmediate(() => {
      try {
        listener?.onReceiveStatus?.(closedStatus());
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        this.caller()?.onReceiveStatus?.(closedStatus());
      }
    });
  }
  sendMessageWithContext(): void {}
  sendMessage(): void {}
  startRead(): void {}
  halfClose(): void {}
  getAuthContext(): null {
    return null;
  }
}

/** The SDK's retry interceptor (same options), whose attempts after close end as CANCELLED instead of throwing. */
export function closeSafeRetryInterceptor(): Interceptor {
  const retry = makeGrpcRetryInterceptor(defaultGrpcRetryOptions());
  return (options, nextCall) => {
    let caller: Partial<InterceptingListener> | undefined;
    const retrying = retry(options, (callOptions) => {
      try {
        return nextCall(callOptions);
      } catch (error) {
        if (error instanceof Error && CLOSED.test(error.message)) return new InterceptingCall(new ClosedConnectionCall(() => caller));
        throw error;
      }
    });
    return new InterceptingCall(retrying, {
      start(metadata, listener, next) {
        caller = listener;
        next(metadata, listener);
      },
    });
  };
}

/**
 * `Connection.connect` with the close-safe retry interceptor first (before any interceptors of the caller's). Every
 * Temporal client connection of ragtime's (SDK, CLI, server, tests) is made here.
 *
 * @example
 * const connection = await connectTemporal({ address: '127.0.0.1:7233' });
 * try { … } finally { await connection.close(); }
 */
export function connectTemporal(options: ConnectionOptions): Promise<Connection> {
  return Connection.connect({ ...options, interceptors: [closeSafeRetryInterceptor(), ...(options.interceptors ?? [])] });
}
