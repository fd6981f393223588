//! `oauth.tokenFile`: replicas that read one token file something else keeps fresh, as a
//! Kubernetes Secret mounted as files is (the kubelet swaps its `..data` symlink), against the
//! HTTP fixture's own authorization server (`mcp-http-fixture --oauth`). The tokens are real: a
//! sidecar logs in (the writer, as `mcp-sidecar login` or a refresher would) and its record is
//! what the readers' file holds. Two reader processes use the file's token with no login of
//! their own; a swapped file is used by the next call, without a restart; a rewrite their look at
//! the file cannot see is read again after the server's 401; the file is never written, no reader
//! keeps a token store, and a file's content never shows in a status.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::oauth::{browse, config, count, echo, http};
use crate::remote::HttpFixture;
use crate::support::{temp_dir, Sidecar};

/// A sidecar with its own cache directory (where a token store would go).
fn sidecar(cache: &Path) -> Sidecar {
    Sidecar::initialized_with(&["--cache-dir", cache.to_str().unwrap()], json!({}))
}

/// One login by a writer sidecar of its own: the token store record it kept (text) and its
/// access token.
fn logged_in_record(fx: &HttpFixture, tag: &str) -> (String, String) {
    let cache = temp_dir(tag);
    let mut writer = sidecar(&cache);
    let status = writer.add("o", config(fx));
    assert_eq!(status["state"], "needs_login", "{status}");
    let url = writer.server_changed("o", |st| st["authorizationUrl"].is_string())
        ["authorizationUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(browse(&url).status, 200);
    writer.server_changed("o", |st| st["state"] == "ready");
    let server_url = format!("{}/mcp", fx.base);
    let file = cache.join("oauth").join(format!(
        "{}.json",
        hex::encode(Sha256::digest(server_url.as_bytes()))
    ));
    let text = std::fs::read_to_string(&file).unwrap();
    let record: Value = serde_json::from_str(&text).unwrap();
    let issuer = record["current"].as_str().unwrap();
    let token = record["issuers"][issuer]["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    (text, token)
}

/// A folder laid out as the kubelet mounts a Secret: `token.json → ..data/token.json`, `..data →`
/// a versioned folder holding the files.
struct MountedSecret {
    dir: PathBuf,
}

impl MountedSecret {
    fn new(tag: &str, content: &str) -> MountedSecret {
        let secret = MountedSecret { dir: temp_dir(tag) };
        let version = secret.write_version(1, content);
        symlink(&version, secret.dir.join("..data")).unwrap();
        symlink("..data/token.json", secret.dir.join("token.json")).unwrap();
        secret
    }

    fn path(&self) -> PathBuf {
        self.dir.join("token.json")
    }

    fn write_version(&self, n: u32, content: &str) -> String {
        let version = format!("..2026_12_05_v{n}");
        std::fs::create_dir(self.dir.join(&version)).unwrap();
        std::fs::write(self.dir.join(&version).join("token.json"), content).unwrap();
        version
    }

    /// The kubelet's update: a new versioned folder, then `..data` swapped to it by a rename.
    fn update(&self, n: u32, content: &str) {
        let version = self.write_version(n, content);
        let tmp = self.dir.join("..data_tmp");
        symlink(&version, &tmp).unwrap();
        std::fs::rename(&tmp, self.dir.join("..data")).unwrap();
    }
}

/// Every file under `dir` (symlinks as their targets' text), with its bytes and modification
/// time: what "never written" compares.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.push((
                    path,
                    target.into_os_string().into_encoded_bytes(),
                    meta.modified().unwrap(),
                ));
            } else {
                out.push((
                    path.clone(),
                    std::fs::read(&path).unwrap(),
                    meta.modified().unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

fn with_token_file(fx: &HttpFixture, file: &Path) -> Value {
    let mut c = config(fx);
    c["oauth"] = json!({ "tokenFile": file });
    c
}

/// How many requests reached the server carrying `token`.
fn uses(fx: &HttpFixture, token: &str) -> usize {
    fx.requests()
        .matches(&format!("authorization=Bearer {token}\n"))
        .count()
        + fx.requests()
            .matches(&format!("authorization=Bearer {token} "))
            .count()
}

#[test]
fn two_replicas_read_one_mounted_token_file_follow_its_updates_and_never_write_it() {
    let fx = HttpFixture::start(&["--oauth"]);
    let (record_a, token_a) = logged_in_record(&fx, "token-file-writer-a");
    let secret = MountedSecret::new("token-file-secret", &record_a);
    let (cache_1, cache_2) = (temp_dir("token-file-r1"), temp_dir("token-file-r2"));
    let mut replicas = [sidecar(&cache_1), sidecar(&cache_2)];
    for (i, r) in replicas.iter_mut().enumerate() {
        let status = r.add("o", with_token_file(&fx, &secret.path()));
        assert_eq!(status["state"], "ready", "replica {i}: {status}");
        assert!(!status.to_string().contains(&token_a), "{status}");
        assert_eq!(echo(r, &format!("r{i}"))["result"]["text"], format!("r{i}"));
    }
    assert_eq!(count(&fx, "authorize"), 1, "only the writer logged in");
    assert_eq!(count(&fx, "token_refresh"), 0, "a reader never refreshes");
    let before = snapshot(&secret.dir);

    // The Secret updated (another login's token), the readers running on.
    let (record_b, token_b) = logged_in_record(&fx, "token-file-writer-b");
    assert_ne!(token_a, token_b);
    secret.update(2, &record_b);
    let after_update = snapshot(&secret.dir);
    let (a_then, b_then) = (uses(&fx, &token_a), uses(&fx, &token_b));
    for (i, r) in replicas.iter_mut().enumerate() {
        assert_eq!(echo(r, &format!("s{i}"))["result"]["text"], format!("s{i}"));
    }
    assert!(
        uses(&fx, &token_b) >= b_then + 2,
        "each replica's next call carries the new token"
    );
    assert_eq!(
        uses(&fx, &token_a),
        a_then,
        "the old token is not sent again"
    );

    // Nothing of the readers' went to the file, nor to a token store of their own.
    assert_eq!(snapshot(&secret.dir), after_update);
    assert_eq!(
        before.len() + 1,
        after_update.len(),
        "the kubelet's new version, nothing else"
    );
    for cache in [&cache_1, &cache_2] {
        assert!(!cache.join("oauth").exists(), "{}", cache.display());
    }
    assert_eq!(count(&fx, "authorize"), 2, "the writers' two logins");
}

/// A rewrite the readers' look cannot see (same size, same inode, the old modification time) is
/// read again after the server's 401, and the call succeeds with the new token.
#[test]
fn a_refused_token_makes_the_file_read_again_before_the_call_fails() {
    let fx = HttpFixture::start(&["--oauth"]);
    let (_, token_a) = logged_in_record(&fx, "token-file-401-writer-a");
    let dir = temp_dir("token-file-401");
    let file = dir.join("token");
    std::fs::write(&file, format!("{token_a}\n")).unwrap();
    let mut reader = sidecar(&temp_dir("token-file-401-reader"));
    assert_eq!(
        reader.add("o", with_token_file(&fx, &file))["state"],
        "ready"
    );
    assert_eq!(echo(&mut reader, "one")["result"]["text"], "one");

    // Every token refused; a new login's token written in place, the look left as it was.
    assert_eq!(
        http("POST", &format!("{}/_oauth/expire-access", fx.base)).status,
        200
    );
    let (_, token_b) = logged_in_record(&fx, "token-file-401-writer-b");
    assert_eq!(
        token_a.len(),
        token_b.len(),
        "same size: the look cannot tell"
    );
    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(&file, format!("{token_b}\n")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let refused = count(&fx, "unauthorized");
    assert_eq!(echo(&mut reader, "two")["result"]["text"], "two");
    assert!(
        count(&fx, "unauthorized") > refused,
        "the old token was refused first"
    );
    assert!(uses(&fx, &token_b) >= 1);

    // Still the refused token and nothing else to read: the call fails naming the file, never
    // its content, and the file stays as it was.
    assert_eq!(
        http("POST", &format!("{}/_oauth/expire-access", fx.base)).status,
        200
    );
    let failed = echo(&mut reader, "three");
    let text = failed.to_string();
    assert!(text.contains("oauth.tokenFile"), "{failed}");
    assert!(!text.contains(&token_b), "{failed}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        format!("{token_b}\n")
    );
}

#[test]
fn a_token_file_that_cannot_serve_says_why_without_its_content() {
    let fx = HttpFixture::start(&["--oauth"]);
    let dir = temp_dir("token-file-bad");
    let file = dir.join("token");
    std::fs::write(&file, "two words-token-file-secret-77").unwrap();
    let mut reader = sidecar(&temp_dir("token-file-bad-reader"));
    let status = reader.add("o", with_token_file(&fx, &file));
    let text = status.to_string();
    assert_ne!(status["state"], "ready", "{status}");
    assert!(
        text.contains("oauth.tokenFile") && text.contains("visible ASCII"),
        "{status}"
    );
    assert!(!text.contains("token-file-secret-77"), "{status}");
    assert_eq!(count(&fx, "authorize"), 0, "no login for a token file");
}
