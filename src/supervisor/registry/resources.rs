//! Registry operations on the rest of the servers' surface (resources, prompts, completion, log
//! levels), each handed to [`crate::supervisor::listing`] or [`crate::supervisor::surface`].

use serde_json::{Map, Value};

use crate::error::Result;
use crate::mcp::{LogLevel, SurfaceList};
use crate::supervisor::listing;
use crate::supervisor::surface::{self, PromptGot, ResourceRead};

use super::Registry;

impl Registry {
    /// One host page of `resources/list` over every ready server (or `server` alone).
    pub(crate) async fn resources(
        &self,
        server: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Value> {
        listing::page(&self.roster, SurfaceList::Resources, server, cursor).await
    }

    /// One host page of `resources/templates/list`.
    pub(crate) async fn resource_templates(
        &self,
        server: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Value> {
        listing::page(&self.roster, SurfaceList::ResourceTemplates, server, cursor).await
    }

    /// One host page of `prompts/list`.
    pub(crate) async fn prompts(
        &self,
        server: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Value> {
        listing::page(&self.roster, SurfaceList::Prompts, server, cursor).await
    }

    /// `resources/read`: held to `maxResultBytes` like a tool result.
    pub(crate) async fn read_resource(&self, server: &str, uri: &str) -> Result<ResourceRead> {
        surface::read_resource(&self.roster, &self.results, server, uri).await
    }

    /// `resources/subscribe` (`on`) or `resources/unsubscribe`.
    pub(crate) async fn subscribe(&self, server: &str, uri: &str, on: bool) -> Result<()> {
        if on {
            surface::subscribe(&self.roster, server, uri).await
        } else {
            surface::unsubscribe(&self.roster, server, uri).await
        }
    }

    pub(crate) async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: &Map<String, Value>,
    ) -> Result<PromptGot> {
        surface::get_prompt(&self.roster, server, name, arguments).await
    }

    pub(crate) async fn complete(&self, server: &str, params: &Value) -> Result<Value> {
        surface::complete(&self.roster, server, params).await
    }

    pub(crate) async fn set_log_level(
        &self,
        server: Option<&str>,
        level: LogLevel,
    ) -> Result<Value> {
        surface::set_log_level(&self.roster, server, level).await
    }
}
