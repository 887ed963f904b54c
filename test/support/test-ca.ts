import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type TestCert = { dir: string; caFile: string; key: string; cert: string; ca: string };

/**
 * A throw-away CA and a server certificate it signed, made with openssl at test time, for
 * `localhost`, `catalog.test` and 127.0.0.1. Nothing is committed; the dir is the caller's to remove.
 */
export function makeTestCert(): TestCert {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-tls-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=kspace test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=catalog.test');
  fs.writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,DNS:catalog.test,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  );
  const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
  return { dir, caFile: path.join(dir, 'ca.pem'), key: read('server.key'), cert: read('server.pem'), ca: read('ca.pem') };
}
