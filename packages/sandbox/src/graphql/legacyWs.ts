/**
 * The legacy `graphql-ws` subprotocol of subscriptions-transport-ws (Apollo's original transport), which older clients
 * still speak: connection_init -> connection_ack + ka, start/stop by id, data/error/complete back.
 * graphql-ws's own server refuses it, so the stand-ins answer it here.
 */
import { parse, validate, execute, subscribe, getOperationAST, type GraphQLSchema, type ExecutionResult, GraphQLError } from 'graphql';
import type { WebSocket } from 'ws';

export const LEGACY_PROTOCOL = 'graphql-ws';

interface Message {
  type?: string;
  id?: string;
  payload?: { query?: string; variables?: Record<string, unknown> | null; operationName?: string | null };
}

export function serveLegacy(socket: WebSocket, schema: GraphQLSchema, rootValue?: unknown, keepAliveMs = 10_000): void {
  const operations = new Map<string, AsyncIterator<ExecutionResult>>();
  let keepAlive: NodeJS.Timeout | undefined;
  const send = (msg: object) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(msg));
  };
  const stop = (id: string) => {
    const it = operations.get(id);
    operations.delete(id);
    void it?.return?.();
  };

  socket.on('message', async (raw) => {
    let msg: Message;
    try {
      msg = JSON.parse(String(raw)) as Message;
    } catch {
      send({ type: 'connection_error', payload: { message: 'Message is not JSON' } });
      return;
    }
    switch (msg.type) {
      case 'connection_init':
        send({ type: 'connection_ack' });
        send({ type: 'ka' });
        keepAlive ??= setInterval(() => send({ type: 'ka' }), keepAliveMs);
        return;
      case 'start':
        if (msg.id !== undefined) await start(msg.id, msg.payload ?? {});
        return;
      case 'stop':
        if (msg.id !== undefined) {
          stop(msg.id);
          send({ type: 'complete', id: msg.id });
        }
        return;
      case 'connection_terminate':
        socket.close(1000);
        return;
      default:
        send({ type: 'error', id: msg.id, payload: { message: `Unknown message type ${String(msg.type)}` } });
    }
  });
  socket.on('close', () => {
    clearInterval(keepAlive);
    for (const id of [...operations.keys()]) stop(id);
  });

  async function start(id: string, payload: NonNullable<Message['payload']>): Promise<void> {
    let document;
    try {
      document = parse(payload.query ?? '');
    } catch (err) {
      send({ type: 'error', id, payload: { message: (err as GraphQLError).message } });
      return;
    }
    const errors = validate(schema, document);
    if (errors.length) {
      send({ type: 'error', id, payload: errors.map((e) => e.toJSON()) });
      return;
    }
    const args = { schema, document, rootValue, variableValues: payload.variables ?? undefined, operationName: payload.operationName ?? undefined };
    const isSubscription = getOperationAST(document, args.operationName)?.operation === 'subscription';
    const result = isSubscription ? await subscribe(args) : await execute(args);
    if (!(Symbol.asyncIterator in result)) {
      send({ type: 'data', id, payload: result });
      send({ type: 'complete', id });
      return;
    }
    const iterator = result[Symbol.asyncIterator]();
    operations.set(id, iterator);
    for (;;) {
      const next = await iterator.next();
      if (next.done || !operations.has(id)) break;
      send({ type: 'data', id, payload: next.value });
    }
    if (operations.delete(id)) send({ type: 'complete', id });
  }
}
