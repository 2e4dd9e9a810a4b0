import { RagError } from '../core/errors';

/*
 * A server that cannot take its port says so in one line (issue 14 §13), not with Node's raw EADDRINUSE stack:
 * which server, which address, and what to do.
 */

export function listenError(error: unknown, server: string, host: string, port: number, portFlag: string): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE') return new RagError('INVALID_CONFIG', `${server}: ${host}:${port} is already in use by another process; stop it, or choose another port (${portFlag})`, { cause: error });
  if (code === 'EACCES') return new RagError('INVALID_CONFIG', `${server}: not allowed to listen on ${host}:${port} (ports below 1024 need privileges); choose another port (${portFlag})`, { cause: error });
  if (code === 'EADDRNOTAVAIL') return new RagError('INVALID_CONFIG', `${server}: ${host} is not an address of this machine; choose another host (--host)`, { cause: error });
  return error;
}
