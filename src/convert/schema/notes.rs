//! The bounds of schema conversion and the [`Notes`] a conversion records (sent to hosts as
//! `conversionNotes`).

/// Deepest nesting of subschemas kept; deeper ones become permissive.
pub const MAX_SCHEMA_DEPTH: usize = 32;
/// Longest chain of `$ref`s followed within one branch (a cycle is cut at its first repeat).
pub const MAX_REF_DEPTH: usize = 16;
/// Most schema nodes produced by inlining one tool's schema (a typical tool has well under 200;
/// definitions used many times can otherwise multiply: each level of a DAG of references may
/// double the output).
pub const MAX_SCHEMA_NODES: usize = 5_000;

/// One change made to a tool's schema, for a host to log. Fields are declared in key order, so
/// the wire JSON is canonical like everything else (`{"action","path","reason"}`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Note {
    pub action: Action,
    /// JSON Pointer of the schema node concerned, in the schema as the transform saw it (after
    /// inlining: positions in the converted schema); `""` is the top level.
    pub path: String,
    /// Why, in words, naming the keyword and the provider rule.
    pub reason: String,
}

/// What was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// A keyword was removed (the schema accepts at least what it accepted before).
    Dropped,
    /// A construct was expressed differently with the same meaning for a model.
    Rewritten,
    /// `$ref`s were replaced by the definitions they point at.
    Inlined,
    /// Several schemas were merged into one (`allOf`).
    Merged,
    /// The schema now admits more than before (the original schema still validates arguments).
    Widened,
    /// The schema now admits less than before (what a model sends still passes validation).
    Narrowed,
    /// A branch (recursive `$ref`, too deep, too large, remote `$ref`) became a permissive schema.
    Cut,
    /// Strict mode was asked for but this tool cannot be strict; it is sent with `strict: false`.
    StrictFallback,
}

/// Most notes kept per tool; the rest are counted in one last note (a huge generated schema must
/// not turn into a huge `conversionNotes`).
pub const MAX_NOTES: usize = 200;

/// The notes of one conversion, in order, without repeats, at most [`MAX_NOTES`].
#[derive(Debug, Default)]
pub struct Notes {
    notes: Vec<Note>,
    seen: std::collections::HashSet<Note>,
    omitted: usize,
}

impl Notes {
    pub fn add(&mut self, path: &str, action: Action, reason: impl Into<String>) {
        self.push(Note {
            path: path.to_string(),
            action,
            reason: reason.into(),
        });
    }

    fn push(&mut self, note: Note) {
        if self.seen.contains(&note) {
            return;
        }
        if self.notes.len() >= MAX_NOTES {
            self.omitted += 1;
            return;
        }
        self.seen.insert(note.clone());
        self.notes.push(note);
    }

    pub fn extend(&mut self, other: Notes) {
        self.omitted += other.omitted;
        for note in other.notes {
            self.push(note);
        }
    }

    /// The notes, with a last one counting those left out.
    pub fn into_vec(self) -> Vec<Note> {
        let mut notes = self.notes;
        if self.omitted > 0 {
            notes.push(Note {
                path: String::new(),
                action: Action::Dropped,
                reason: format!(
                    "{} more note(s) left out (at most {MAX_NOTES} per tool)",
                    self.omitted
                ),
            });
        }
        notes
    }

    pub fn as_slice(&self) -> &[Note] {
        &self.notes
    }
}

/// Runs one transform on `schema`; the resulting schema and notes as compact JSON, for exact-wire
/// assertions in each transform's tests.
#[cfg(test)]
pub(crate) fn run_transform(
    transform: fn(&mut serde_json::Value, &mut Notes),
    schema: serde_json::Value,
) -> (String, String) {
    let mut schema = schema;
    let mut notes = Notes::default();
    transform(&mut schema, &mut notes);
    (
        serde_json::to_string(&schema).unwrap(),
        serde_json::to_string(notes.as_slice()).unwrap(),
    )
}
