import { innermostReason } from '../../activities/adapters/error-reason';
import { CheckTimeout } from './check-runner';

/*
 * The words of a doctor failure line: why a call failed (the socket's own reason, not the SDK's wrapper), whether
 * that means "unreachable", how to fix it, and addresses shown without credentials.
 */

// Socket errors that mean nothing answered at that address.
const UNREACHABLE = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|socket hang up|No connection established|DEADLINE_EXCEEDED|deadline|timed out/i;

/**
 * The readable reason of a failure: the timeout, or the innermost cause. gRPC clients (Milvus) put the socket's
 * error inside their message ("14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED
 * 127.0.0.1:1. Resolution note: …"); that part alone is kept.
 */
export function reasonOf(error: unknown): string {
  if (error instanceof CheckTimeout) return error.message;
  const reason = innermostReason(error);
  const grpc = /Last error: (?:\w*Error: )?(.*?)\.? Resolution note/.exec(reason);
  return (grpc?.[1] ?? reason).trim();
}

/** True when the failure says nothing answered (refused, no such host, or no answer in time). */
export function isUnreachable(error: unknown): boolean {
  return error instanceof CheckTimeout || UNREACHABLE.test(reasonOf(error)) || UNREACHABLE.test(String(error));
}

/** True for loopback addresses (host:port, [::1]:port or a URL): the local services `ragtime services up` starts. */
export function isLoopback(address: string): boolean {
  const host = hostOf(address);
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function hostOf(address: string): string {
  try {
    if (/^[a-z][\w+.-]*:\/\//i.test(address)) return new URL(address).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return address;
  }
  return address.replace(/^\[([^\]]*)\](:\d+)?$/, '$1').replace(/:\d+$/, '');
}

/** How to get an unreachable service back: start the local ones, or check a remote one and its variable. */
export function startHint(service: string, address: string, variable: string): string {
  return isLoopback(address)
    ? 'start it with `npx ragtime services up` (or `make up`)'
    : `check that ${service} runs at ${address} and that ${variable} names it`;
}

/** A URL for display: no user, password, query or fragment (an API key may sit in any of them). */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url.replace(/\/\/[^/@\s]*@/, '//');
  }
}

/** A message cut to one line of at most `max` characters. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
