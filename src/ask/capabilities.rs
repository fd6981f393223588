//! What the owner of a session declared it can answer, in the shape of MCP's client capabilities
//! (the host sends it in `initialize`, the sidecar forwards exactly it to every server), and the
//! check of one question against it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::AskError;
use super::shown_url::check_shown_url;

/// The capabilities an owner may declare, by name (announced to hosts so they can detect them).
pub(crate) const DECLARABLE: [&str; 4] = ["sampling", "elicitation", "roots", "auth"];

/// The declaration. Absent means "not declared"; each present part is forwarded as it was given.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Capabilities {
    /// `sampling/createMessage`: the owner can run a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Sampling>,
    /// `elicitation/create`: the owner can ask its user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<Elicitation>,
    /// `roots/list`: the owner can say which roots a server may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Roots>,
    /// `auth/authorize`: the owner can put an OAuth authorization URL in front of a person (the
    /// sidecar's own question, not an MCP capability: never forwarded to servers).
    #[serde(default, skip_serializing)]
    pub auth: Option<Map<String, Value>>,
}

/// `sampling`: `context` allows `includeContext` other than `none`, `tools` allows tools in a
/// sampling request.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Sampling {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Map<String, Value>>,
}

/// `elicitation`: the modes the owner supports; neither given means form only (MCP's `{}`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Elicitation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Map<String, Value>>,
}

/// `roots`: `listChanged` promises `notifications/roots/list_changed` when the roots change.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Roots {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

impl Elicitation {
    /// Whether `mode` (`form` or `url`) is supported.
    pub fn supports(&self, mode: &str) -> bool {
        match mode {
            "form" => self.form.is_some() || self.url.is_none(),
            "url" => self.url.is_some(),
            _ => false,
        }
    }
}

impl Capabilities {
    /// The MCP `ClientCapabilities` object: exactly what was declared.
    pub fn to_mcp(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|_| Value::Object(Map::new()))
    }

    /// Whether the owner promised `notifications/roots/list_changed`.
    pub fn roots_list_changed(&self) -> bool {
        self.roots
            .as_ref()
            .is_some_and(|r| r.list_changed == Some(true))
    }

    /// Whether `method` with `params` may be asked: `NotDeclared` when its capability was not
    /// declared (or the method is unknown), `Unsupported` when the capability was but not the
    /// mode or feature this question needs (MCP: an undeclared elicitation mode, tools or context
    /// in a sampling request without `sampling.tools`/`sampling.context`).
    pub fn admit(&self, method: &str, params: &Value) -> Result<(), AskError> {
        let not_declared = || AskError::NotDeclared {
            method: method.to_owned(),
        };
        match method {
            "sampling/createMessage" => {
                let sampling = self.sampling.as_ref().ok_or_else(not_declared)?;
                admit_sampling(sampling, params)
            }
            "elicitation/create" => {
                let elicitation = self.elicitation.as_ref().ok_or_else(not_declared)?;
                let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
                if !elicitation.supports(mode) {
                    return Err(AskError::Unsupported {
                        reason: format!("elicitation mode `{mode}` is not supported by the client"),
                    });
                }
                if mode == "url" {
                    admit_url(method, params)?;
                }
                Ok(())
            }
            "roots/list" => self.roots.as_ref().map(drop).ok_or_else(not_declared),
            "auth/authorize" => {
                self.auth.as_ref().ok_or_else(not_declared)?;
                admit_url(method, params)
            }
            _ => Err(not_declared()),
        }
    }
}

/// The `url` of a question that shows one to a person passes [`check_shown_url`] (-32602 otherwise).
fn admit_url(method: &str, params: &Value) -> Result<(), AskError> {
    let url = params
        .get("url")
        .and_then(Value::as_str)
        .ok_or_else(|| AskError::Unsupported {
            reason: format!("`{method}` needs a `url` string"),
        })?;
    check_shown_url(url).map_err(|why| AskError::Unsupported {
        reason: format!("the `url` of `{method}` {why}"),
    })
}

fn admit_sampling(sampling: &Sampling, params: &Value) -> Result<(), AskError> {
    let present = |key: &str| params.get(key).is_some_and(|v| !v.is_null());
    if (present("tools") || present("toolChoice")) && sampling.tools.is_none() {
        return Err(AskError::Unsupported {
            reason: "tools in a sampling request are not supported by the client (sampling.tools was not declared)".into(),
        });
    }
    let context = params.get("includeContext").and_then(Value::as_str);
    if matches!(context, Some("thisServer" | "allServers")) && sampling.context.is_none() {
        return Err(AskError::Unsupported {
            reason:
                "includeContext is not supported by the client (sampling.context was not declared)"
                    .into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn declared(v: Value) -> Capabilities {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn forwards_exactly_what_was_declared() {
        let all = json!({"sampling": {"tools": {}}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": true}});
        assert_eq!(declared(all.clone()).to_mcp(), all);
        assert_eq!(
            declared(json!({"elicitation": {}})).to_mcp(),
            json!({"elicitation": {}})
        );
        assert_eq!(declared(json!({})).to_mcp(), json!({}));
        // `auth` is the sidecar's own: admitted, never forwarded to a server.
        let auth = declared(json!({"auth": {}, "roots": {}}));
        assert_eq!(auth.to_mcp(), json!({"roots": {}}));
        let login = json!({"server": "s", "url": "https://as.example/authorize?x=1", "redirectUri": "http://127.0.0.1:9/cb"});
        assert!(auth.admit("auth/authorize", &login).is_ok());
        assert!(declared(json!({}))
            .admit("auth/authorize", &json!({}))
            .is_err());
        assert!(declared(json!({"roots": {"listChanged": true}})).roots_list_changed());
        assert!(!declared(json!({"roots": {}})).roots_list_changed());
    }

    /// Elicitation in URL mode and `auth/authorize` show a URL to a person under one rule: https,
    /// or http to a loopback host; anything else is -32602 before the owner is asked.
    #[test]
    fn urls_shown_to_a_person_are_https_or_loopback() {
        let both = declared(json!({"elicitation": {"url": {}}, "auth": {}}));
        let elicit = |url: Value| {
            both.admit(
                "elicitation/create",
                &json!({"mode": "url", "url": url, "elicitationId": "e", "message": "m"}),
            )
        };
        let authorize = |url: Value| {
            both.admit(
                "auth/authorize",
                &json!({"server": "s", "url": url, "redirectUri": "http://127.0.0.1:1/cb"}),
            )
        };
        for ok in [
            "https://example.com/v",
            "http://127.0.0.1:8/v",
            "http://localhost/v",
        ] {
            assert!(elicit(json!(ok)).is_ok(), "{ok}");
            assert!(authorize(json!(ok)).is_ok(), "{ok}");
        }
        for bad in [
            json!("javascript:alert(1)"),
            json!("file:///etc/passwd"),
            json!("data:text/html,<script>alert(1)</script>"),
            json!("http://example.com/v"),
            json!(7),
            Value::Null,
        ] {
            for refused in [elicit(bad.clone()), authorize(bad.clone())] {
                let e = refused.unwrap_err();
                assert_eq!(e.rpc_code(), -32602, "{bad}: {e}");
                assert!(e.to_string().contains("url"), "{e}");
            }
        }
        // Form mode shows no URL: nothing to check.
        let form = declared(json!({"elicitation": {}}));
        assert!(form
            .admit(
                "elicitation/create",
                &json!({"message": "m", "url": "javascript:x"})
            )
            .is_ok());
    }

    #[test]
    fn unknown_fields_are_refused() {
        for bad in [
            json!({"sampling": {"context": {}, "bogus": {}}}),
            json!({"elicitaton": {}}),
            json!({"roots": {"listChanged": "yes"}}),
            json!({"elicitation": {"form": true}}),
        ] {
            assert!(
                serde_json::from_value::<Capabilities>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn admits_only_what_was_declared() {
        let none = Capabilities::default();
        for method in [
            "sampling/createMessage",
            "elicitation/create",
            "roots/list",
            "x/y",
        ] {
            assert!(matches!(
                none.admit(method, &json!({})),
                Err(AskError::NotDeclared { .. })
            ));
        }
        let form_only = declared(json!({"elicitation": {}}));
        assert!(form_only.admit("elicitation/create", &json!({})).is_ok());
        assert!(form_only
            .admit("elicitation/create", &json!({"mode": "form"}))
            .is_ok());
        let url = form_only.admit("elicitation/create", &json!({"mode": "url"}));
        assert!(matches!(url, Err(AskError::Unsupported { .. })), "{url:?}");
        let url_only = declared(json!({"elicitation": {"url": {}}}));
        assert!(url_only
            .admit(
                "elicitation/create",
                &json!({"mode": "url", "url": "https://example.com/verify"})
            )
            .is_ok());
        assert!(url_only.admit("elicitation/create", &json!({})).is_err());

        let plain = declared(json!({"sampling": {}}));
        assert!(plain
            .admit("sampling/createMessage", &json!({"maxTokens": 5}))
            .is_ok());
        let tools = json!({"maxTokens": 5, "tools": [{"name": "t"}]});
        assert!(plain.admit("sampling/createMessage", &tools).is_err());
        assert!(declared(json!({"sampling": {"tools": {}}}))
            .admit("sampling/createMessage", &tools)
            .is_ok());
        let context = json!({"includeContext": "allServers"});
        assert!(plain.admit("sampling/createMessage", &context).is_err());
        assert!(plain
            .admit("sampling/createMessage", &json!({"includeContext": "none"}))
            .is_ok());
        assert!(declared(json!({"roots": {}}))
            .admit("roots/list", &json!({}))
            .is_ok());
    }
}
