/**
 * The close-safe retry interceptor (client/temporal-connection.ts) without a server: a call whose first attempt fails
 * UNAVAILABLE before any message, and whose retry finds the channel shut down. The SDK's retry interceptor hands a
 * final status on through the first attempt's message callback, which such an attempt never set: before the fix this
 * threw "savedMessageNext is not a function" out of a setImmediate (the solo tier's "Test suite failed to run").
 */
import { InterceptingCall, Metadata, status, type InterceptingListener, type StatusObject } from '@grpc/grpc-js';
import { closeSafeRetryInterceptor } from '../../../client/temporal-connection';

type CallInterface = ConstructorParameters<typeof InterceptingCall>[0];

/** A first attempt that fails UNAVAILABLE before any message arrives. */
class UnavailableCall implements CallInterface {
  cancelWithStatus(): void {}
  getPeer(): string {
    return '';
  }
  start(_metadata: Metadata, listener?: Partial<InterceptingListener>): void {
    setImmediate(() => listener?.onReceiveStatus?.({ code: status.UNAVAILABLE, details: 'gone', metadata: new Metadata() }));
  }
  sendMessageWithContext(): void {}
  sendMessage(): void {}
  startRead(): void {}
  halfClose(): void {}
  getAuthContext(): null {
    return null;
  }
}

test('a retry after the channel was shut down ends the call CANCELLED, and nothing is thrown from a timer', async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => void uncaught.push(error);
  const jestHandlers = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  process.on('uncaughtException', onUncaught);
  try {
    let attempts = 0;
    const call = closeSafeRetryInterceptor()({} as never, () => {
      attempts++;
      if (attempts === 1) return new InterceptingCall(new UnavailableCall());
      throw new Error('Channel has been shut down');
    });
    const ended = new Promise<StatusObject>((resolve) => {
      call.start(new Metadata(), { onReceiveMessage: () => undefined, onReceiveStatus: resolve });
    });
    call.sendMessage({});
    call.halfClose();
    const ending = await ended;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(attempts).toBe(2);
    expect(ending.code).toBe(status.CANCELLED);
    expect(ending.details).toMatch(/connection was closed/);
    expect(uncaught).toEqual([]);
  } finally {
    process.removeListener('uncaughtException', onUncaught);
    for (const handler of jestHandlers) process.on('uncaughtException', handler);
  }
}, 10_000);
