import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/*
 * A throw-away PKI for TLS tests, made with the machine's openssl: a CA, a server certificate for localhost and
 * 127.0.0.1 signed by it, a client certificate signed by it (mTLS), and a second CA that signed nothing of these
 * (the "wrong CA"). Files only: the tests hand their paths to ragtime as a user would.
 */

export type TestPki = {
  dir: string;
  ca: string;
  wrongCa: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  remove(): void;
};

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });

function makeCa(dir: string, name: string): void {
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout', `${name}.key`, '-out', `${name}.pem`], dir);
}

function makeLeaf(dir: string, name: string, ca: string, extensions: string): void {
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`], dir);
  writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-days', '2',
    '-extfile', `${name}.ext`, '-out', `${name}.pem`], dir);
}

export function makeTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'ragtime-pki-'));
  makeCa(dir, 'ca');
  makeCa(dir, 'wrong-ca');
  makeLeaf(dir, 'server', 'ca', 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n');
  makeLeaf(dir, 'client', 'ca', 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n');
  const at = (file: string) => path.join(dir, file);
  return {
    dir,
    ca: at('ca.pem'),
    wrongCa: at('wrong-ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
