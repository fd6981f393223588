//! A server's announcements on their way to the host: list changes, resource updates and log
//! messages (at or above the server's log level), as registry events.

use super::events::{Event, ServerLog};
use super::roster::Roster;
use super::server::Server;
use crate::mcp::ClientEvent;

/// A server's announcement on its way to the host: a resources or prompts list change, a
/// resource update, or a log message at or above the server's log level (none without one).
pub(super) fn forward(roster: &Roster, server: &Server, event: ClientEvent) {
    let name = server.name.clone();
    let event = match event {
        ClientEvent::ResourcesListChanged => Event::ResourcesChanged {
            server: name.to_string(),
        },
        ClientEvent::PromptsListChanged => Event::PromptsChanged {
            server: name.to_string(),
        },
        ClientEvent::ResourceUpdated { uri } => Event::ResourceUpdated {
            server: name.to_string(),
            uri: Some(uri),
        },
        ClientEvent::Log {
            level,
            logger,
            data,
        } => {
            if roster.log_level(server).is_none_or(|min| level < min) {
                return;
            }
            Event::ServerLog(Box::new(ServerLog {
                server: name.to_string(),
                level,
                logger,
                data,
            }))
        }
        ClientEvent::Closed { .. } | ClientEvent::ToolsListChanged => return,
    };
    roster.send(event);
}
