//! The `private_key_jwt` client assertion (RFC 7523 §2.2, OpenID Connect Core §9): a JWT the client
//! signs with its own private key — `iss` and `sub` its client id, `aud` the authorization server's
//! issuer, a short life and a fresh `jti` — sent instead of a secret. The key is a PEM file
//! (PKCS#8 or SEC1 EC for ES256, PKCS#8 or PKCS#1 RSA for RS256), read on each use so a replaced
//! key file takes effect without a restart; its bytes are never logged.

use std::path::Path;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Serialize;

use super::error::AuthError;
use super::pkce::random_token;
use super::token::now;

/// How long an assertion is valid: long enough for one token request.
const ASSERTION_LIFETIME_SECONDS: u64 = 300;

/// Largest key file read.
const KEY_FILE_MAX_BYTES: u64 = 64 * 1024;

#[derive(Serialize)]
struct Claims<'a> {
    iss: &'a str,
    sub: &'a str,
    aud: &'a str,
    iat: u64,
    exp: u64,
    jti: String,
}

/// A signed assertion for `client_id` at the authorization server `audience`.
pub(super) fn client_assertion(
    key_file: &Path,
    client_id: &str,
    audience: &str,
) -> Result<String, AuthError> {
    let pem = read_key(key_file)?;
    let (algorithm, key) = match EncodingKey::from_ec_pem(&pem) {
        Ok(key) => (Algorithm::ES256, key),
        Err(_) => match EncodingKey::from_rsa_pem(&pem) {
            Ok(key) => (Algorithm::RS256, key),
            Err(_) => {
                return Err(AuthError::failed(format!(
                    "oauth.clientAssertionKeyFile {}: not a PEM EC (P-256) or RSA private key",
                    key_file.display()
                )))
            }
        },
    };
    let iat = now();
    let claims = Claims {
        iss: client_id,
        sub: client_id,
        aud: audience,
        iat,
        exp: iat + ASSERTION_LIFETIME_SECONDS,
        jti: random_token()?,
    };
    jsonwebtoken::encode(&Header::new(algorithm), &claims, &key).map_err(|e| {
        AuthError::failed(format!(
            "the client assertion could not be signed with {}: {e}",
            key_file.display()
        ))
    })
}

fn read_key(path: &Path) -> Result<Vec<u8>, AuthError> {
    use std::io::Read;
    let cannot = |e: std::io::Error| {
        AuthError::failed(format!(
            "oauth.clientAssertionKeyFile {}: {e}",
            path.display()
        ))
    };
    let mut pem = Vec::new();
    std::fs::File::open(path)
        .map_err(cannot)?
        .take(KEY_FILE_MAX_BYTES + 1)
        .read_to_end(&mut pem)
        .map_err(cannot)?;
    if pem.len() as u64 > KEY_FILE_MAX_BYTES {
        return Err(AuthError::failed(format!(
            "oauth.clientAssertionKeyFile {}: larger than {KEY_FILE_MAX_BYTES} bytes",
            path.display()
        )));
    }
    Ok(pem)
}
