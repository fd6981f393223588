//! Search terms: how a tool's text and a query are cut into the words BM25 counts.
//!
//! Text is split at every character that is not a letter or a digit (`_`, `-`, `.`, spaces,
//! punctuation), at camelCase boundaries (`getIssue` → `get`, `issue`; `HTTPServer` → `http`,
//! `server`) and between letters and digits (`tree7` → `tree`, `7`). Terms are lowercased and given a
//! light plural folding (`issues` → `issue`, `queries` → `query`) so a query's number does not
//! matter. A handful of English stop words are dropped: they match everything and rank nothing.

/// Words too common in tool descriptions to tell tools apart.
const STOP_WORDS: [&str; 24] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it",
    "its", "of", "on", "or", "that", "the", "this", "to", "with", "you",
];

/// Longest term kept, in bytes; a longer run (a hash, base64) is cut to it.
const MAX_TERM_BYTES: usize = 64;

/// The search terms of `text`, in order (repeats kept: BM25 counts them).
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in words(text) {
        let term = fold_plural(&word.to_lowercase());
        if !term.is_empty() && !STOP_WORDS.contains(&term.as_str()) {
            out.push(cut(term));
        }
    }
    out
}

/// Runs of letters or digits, cut at camelCase and letter/digit boundaries.
fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut start: Option<usize> = None;
    for (i, &(at, c)) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if let Some(s) = start.take() {
                out.push(&text[s..at]);
            }
            continue;
        }
        if let Some(s) = start {
            if boundary(chars[i - 1].1, c, chars.get(i + 1).map(|&(_, n)| n)) {
                out.push(&text[s..at]);
                start = Some(at);
            }
        } else {
            start = Some(at);
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// Whether a new word starts at `c` (preceded by `prev`, followed by `next`).
fn boundary(prev: char, c: char, next: Option<char>) -> bool {
    let lower_to_upper = prev.is_lowercase() && c.is_uppercase();
    // The last capital of an acronym starts the next word: `HTTPServer` → `HTTP`, `Server`.
    let acronym_end =
        prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase);
    let digits = prev.is_ascii_digit() != c.is_ascii_digit();
    lower_to_upper || acronym_end || digits
}

/// `issues` → `issue`, `queries` → `query`, `boxes` → `box`; `status`, `class`, `is` stay.
fn fold_plural(word: &str) -> String {
    let n = word.len();
    if n > 4 && word.ends_with("ies") {
        return format!("{}y", &word[..n - 3]);
    }
    if n > 4 && (word.ends_with("xes") || word.ends_with("ches") || word.ends_with("shes")) {
        return word[..n - 2].to_owned();
    }
    if n > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
        return word[..n - 1].to_owned();
    }
    word.to_owned()
}

fn cut(mut term: String) -> String {
    if term.len() > MAX_TERM_BYTES {
        let mut end = MAX_TERM_BYTES;
        while !term.is_char_boundary(end) {
            end -= 1;
        }
        term.truncate(end);
    }
    term
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_names_the_ways_tools_are_named() {
        assert_eq!(terms("create_issue"), ["create", "issue"]);
        assert_eq!(
            terms("API-post-database-query"),
            ["api", "post", "database", "query"]
        );
        assert_eq!(terms("getIssueComments"), ["get", "issue", "comment"]);
        assert_eq!(terms("HTTPServer"), ["http", "server"]);
        assert_eq!(terms("create_tree_7"), ["create", "tree", "7"]);
        assert_eq!(
            terms("mcp__github__list_repos"),
            ["mcp", "github", "list", "repo"]
        );
        assert_eq!(terms("create.entities"), ["create", "entity"]);
    }

    #[test]
    fn lowercases_folds_plurals_and_drops_stop_words() {
        assert_eq!(
            terms("Search the Issues in a tracker, newest first."),
            ["search", "issue", "tracker", "newest", "first"]
        );
        assert_eq!(terms("queries boxes matches"), ["query", "box", "match"]);
        assert_eq!(terms("status class bus is"), ["status", "class", "bus"]);
        assert_eq!(terms("Größe ändern"), ["größe", "ändern"]);
        assert!(terms("  -- __ ").is_empty());
    }

    #[test]
    fn long_runs_are_cut() {
        let long = "x".repeat(500);
        assert_eq!(terms(&long), [long[..MAX_TERM_BYTES].to_owned()]);
        let wide = "é".repeat(100);
        assert!(terms(&wide)[0].len() <= MAX_TERM_BYTES);
    }
}
