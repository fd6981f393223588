//! MRTR (2026-07-28): a result with `resultType: "input_required"` names requests the server needs
//! answered (`inputRequests`: sampling, elicitation, roots) and an opaque `requestState`. Each is
//! asked through the `ask` seam — the same [`Question`] a legacy server's own request becomes in
//! [`crate::mcp::server_requests`], checked by the owner against what it declared — and the original
//! request is sent again (a new JSON-RPC id) with `inputResponses` under the same keys and the
//! `requestState` echoed byte for byte. Responses of one round replace the last round's; rounds are
//! bounded ([`limits::INPUT_REQUIRED_MAX_ROUNDS`]).

use futures_util::future::join_all;
use serde_json::{Map, Value};

use super::kind::RequestKind;
use super::session::Client;
use crate::ask::Question;
use crate::error::{Error, ErrorCode, Result};
use crate::limits;

/// The methods a server may embed in `inputRequests`.
const INPUT_METHODS: [&str; 3] = ["sampling/createMessage", "elicitation/create", "roots/list"];

impl Client {
    /// Answers the `inputRequests` of `result` (round `round` of `kind`) and returns the params of
    /// the retry: `params` with `inputResponses` and `requestState` set (or removed when absent).
    pub(super) async fn answer_input_required(
        &self,
        kind: RequestKind,
        mut params: Value,
        result: &Value,
        round: usize,
    ) -> Result<Value> {
        self.check_input_round(kind, round)?;
        let (requests, state) = self.input_asked(result)?;
        let responses = self.ask_for_input(requests, round).await?;
        if let Value::Object(map) = &mut params {
            map.remove("inputResponses");
            map.remove("requestState");
            if !responses.is_empty() {
                map.insert("inputResponses".into(), Value::Object(responses));
            }
            if let Some(state) = state {
                map.insert("requestState".into(), state);
            }
        }
        Ok(params)
    }

    /// Whether `kind` may answer `input_required`, and round `round` is within the bound.
    fn check_input_round(&self, kind: RequestKind, round: usize) -> Result<()> {
        if !matches!(
            kind,
            RequestKind::CallTool | RequestKind::GetPrompt | RequestKind::ReadResource
        ) {
            return Err(self.protocol_error(&format!(
                "`{}` answered input_required, which only tools/call, prompts/get and resources/read may",
                kind.method()
            )));
        }
        if round > limits::INPUT_REQUIRED_MAX_ROUNDS {
            return Err(Error::new(
                ErrorCode::ProtocolError,
                format!(
                    "server `{}` still asked for input after {} rounds of `{}` (INPUT_REQUIRED_MAX_ROUNDS)",
                    self.server,
                    limits::INPUT_REQUIRED_MAX_ROUNDS,
                    kind.method()
                ),
            )
            .with("server", &*self.server)
            .with("limit", limits::INPUT_REQUIRED_MAX_ROUNDS as u64));
        }
        Ok(())
    }

    /// The result's `inputRequests` and `requestState`, checked: at least one of them, within
    /// [`limits::INPUT_REQUESTS_MAX`].
    fn input_asked(&self, result: &Value) -> Result<(Map<String, Value>, Option<Value>)> {
        let requests = match result.get("inputRequests") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map.clone(),
            Some(_) => return Err(self.protocol_error("inputRequests is not an object")),
        };
        let state = match result.get("requestState") {
            None | Some(Value::Null) => None,
            Some(s @ Value::String(_)) => Some(s.clone()),
            Some(_) => return Err(self.protocol_error("requestState is not a string")),
        };
        if requests.is_empty() && state.is_none() {
            return Err(
                self.protocol_error("input_required with neither inputRequests nor requestState")
            );
        }
        if requests.len() > limits::INPUT_REQUESTS_MAX {
            return Err(self.protocol_error(&format!(
                "more than {} inputRequests (INPUT_REQUESTS_MAX)",
                limits::INPUT_REQUESTS_MAX
            )));
        }
        Ok((requests, state))
    }

    /// Asks the session's owner every question of `requests` at once; their answers by key, or the
    /// first refusal as UPSTREAM_ERROR (`inputResponses` has no slot for an error).
    async fn ask_for_input(
        &self,
        requests: Map<String, Value>,
        round: usize,
    ) -> Result<Map<String, Value>> {
        let mut questions = Vec::with_capacity(requests.len());
        for (key, request) in requests {
            let method = request
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if !INPUT_METHODS.contains(&method.as_str()) {
                return Err(self.protocol_error(&format!(
                    "inputRequests.{key} asks `{method}`, not one of {}",
                    INPUT_METHODS.join(", ")
                )));
            }
            let mut asked = request
                .get("params")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            self.secrets.mask_json(&mut asked);
            let question = self.asker.ask(Question {
                server: self.server.to_string(),
                method: method.clone(),
                params: asked,
                key: Some(key.clone()),
            });
            questions.push(async move { (key, method, question.await) });
        }
        tracing::debug!(
            server = &*self.server,
            round,
            questions = questions.len(),
            "the server asks for input"
        );
        let mut responses = Map::new();
        for (key, method, answer) in join_all(questions).await {
            match answer {
                Ok(value) => {
                    responses.insert(key, value);
                }
                // There is no error slot in `inputResponses`: the request fails here, unretried.
                Err(e) => {
                    return Err(Error::new(
                        ErrorCode::UpstreamError,
                        format!(
                            "server `{}` needs `{method}` (inputRequests.{key}) answered: {e}",
                            self.server
                        ),
                    )
                    .with("server", &*self.server)
                    .with("upstreamCode", e.rpc_code()))
                }
            }
        }
        Ok(responses)
    }
}
