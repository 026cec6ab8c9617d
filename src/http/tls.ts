/**
 * @module TLS material for `ventureql serve`: a certificate pair given on the command line, or a
 * self-signed development certificate created on first run in the data directory and reused after
 * (so a client told to trust it once keeps trusting it across restarts).
 */
import { X509Certificate, createPrivateKey } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { generate } from 'selfsigned'

export interface TlsMaterial {
  readonly cert: string
  readonly key: string
  readonly certPath: string
  readonly keyPath: string
  /** True when this call created the development certificate (first run). */
  readonly created: boolean
  /** True for the self-signed development certificate, false for one given by the user. */
  readonly selfSigned: boolean
  /** The certificate's last day of validity. */
  readonly validTo: Date
}

/** Raised for a certificate or key that cannot be used; the CLI prints the message and exits 1. */
export class TlsSetupError extends Error {
  override readonly name = 'TlsSetupError'
}

export const DEV_CERT_FILE = 'cert.pem'
export const DEV_KEY_FILE = 'key.pem'
/** Names and addresses a browser or curl may use for a server on this machine. */
const DEV_HOSTNAMES = Object.freeze(['localhost'])
const DEV_ADDRESSES = Object.freeze(['127.0.0.1', '::1'])
/** Development certificates live a year; a certificate this close to expiry is replaced on start. */
const DEV_VALIDITY_DAYS = 365
const RENEW_WITHIN_MS = 7 * 86_400_000

/**
 * Reads a certificate and key pair, checking that both parse and belong together, so a wrong or
 * unreadable file is one clear message at start-up instead of a TLS handshake failure per client.
 */
export function readTlsPair(certPath: string, keyPath: string): TlsMaterial {
  const cert = readPem(certPath, 'certificate (--tls-cert)')
  const key = readPem(keyPath, 'private key (--tls-key)')
  let x509: X509Certificate
  try {
    x509 = new X509Certificate(cert)
  } catch (error) {
    throw new TlsSetupError(`${resolve(certPath)} is not a PEM certificate: ${messageOf(error)}`)
  }
  try {
    if (!x509.checkPrivateKey(createPrivateKey(key))) {
      throw new TlsSetupError(`the private key ${resolve(keyPath)} does not belong to the certificate ${resolve(certPath)}`)
    }
  } catch (error) {
    if (error instanceof TlsSetupError) throw error
    throw new TlsSetupError(`${resolve(keyPath)} is not a usable PEM private key: ${messageOf(error)}`)
  }
  return Object.freeze({
    cert, key, certPath: resolve(certPath), keyPath: resolve(keyPath),
    created: false, selfSigned: false, validTo: new Date(x509.validTo),
  })
}

/**
 * The development certificate in `dataDir` (cert.pem, key.pem): reused when present and valid for
 * more than a week, created otherwise (CN localhost; SAN localhost, 127.0.0.1, ::1).
 */
export async function loadOrCreateDevCertificate(dataDir: string, now = new Date()): Promise<TlsMaterial> {
  const certPath = resolve(join(dataDir, DEV_CERT_FILE))
  const keyPath = resolve(join(dataDir, DEV_KEY_FILE))
  if (existsSync(certPath) && existsSync(keyPath)) {
    let pair: TlsMaterial
    try {
      pair = readTlsPair(certPath, keyPath)
    } catch (error) {
      // Not replaced silently: a client may have been told to trust exactly this certificate.
      throw new TlsSetupError(`${(error as Error).message}; delete ${certPath} and ${keyPath} to have a new development certificate made`)
    }
    const existing = { ...pair, selfSigned: true }
    if (existing.validTo.getTime() - now.getTime() > RENEW_WITHIN_MS) return Object.freeze(existing)
  }
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    // A minute of slack: a client whose clock is slightly behind still accepts it right away.
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + DEV_VALIDITY_DAYS * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...DEV_HOSTNAMES.map((value) => ({ type: 2 as const, value })),
          ...DEV_ADDRESSES.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  })
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(certPath, pems.cert)
  // The key is readable by its owner only; the certificate is public.
  writeFileSync(keyPath, pems.private, { mode: 0o600 })
  chmodSync(keyPath, 0o600)
  return Object.freeze({
    cert: pems.cert, key: pems.private, certPath, keyPath,
    created: true, selfSigned: true, validTo: new Date(new X509Certificate(pems.cert).validTo),
  })
}

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new TlsSetupError(`cannot read the ${what} ${resolve(path)}: ${messageOf(error)}`)
  }
}

function messageOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  return typeof code === 'string' && !message.includes(code) ? `${code} ${message}` : message
}
