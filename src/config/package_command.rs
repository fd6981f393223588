//! The registry package an `npx` or `uvx` command line runs (`npx -y name@version`, `uvx
//! name==version`, `uvx --from name==version prog`): such a command fetches whatever the registry
//! serves at each start, and a warning says so with the `package` block that would pin it.

use std::path::Path;

use super::package::PackageRegistry;

/// A package a command line names: registry, name, and the version when one is exact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandPackage {
    pub registry: PackageRegistry,
    pub name: String,
    pub version: Option<String>,
}

/// The package `command args` runs through `npx` or `uvx`, if it does.
pub fn package_in_command(command: &str, args: &[String]) -> Option<CommandPackage> {
    let program = Path::new(command).file_stem()?.to_str()?;
    let registry = match program {
        "npx" => PackageRegistry::Npm,
        "uvx" => PackageRegistry::Pypi,
        _ => return None,
    };
    // `--from X` / `--package X` / `-p X` name the package; other flags are skipped; the first
    // word that is no flag is the package (or, after `--from`, the program).
    let mut words = args.iter();
    let mut named = None;
    while let Some(word) = words.next() {
        match word.as_str() {
            "--from" | "--package" | "-p" => named = words.next().cloned(),
            w if w.starts_with('-') => {}
            w => {
                named.get_or_insert_with(|| w.to_owned());
                break;
            }
        }
    }
    let spec = named?;
    let (name, version) = match registry {
        PackageRegistry::Npm => match spec.rfind('@').filter(|&i| i > 0) {
            Some(i) => (&spec[..i], Some(&spec[i + 1..])),
            None => (spec.as_str(), None),
        },
        PackageRegistry::Pypi => match spec.split_once("==") {
            Some((n, v)) => (n, Some(v)),
            None => (spec.as_str(), None),
        },
    };
    let exact = version.filter(|v| {
        v.starts_with(|c: char| c.is_ascii_digit())
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
    });
    Some(CommandPackage {
        registry,
        name: name.to_owned(),
        version: exact.map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn npx_and_uvx_lines() {
        let p = package_in_command(
            "npx",
            &words("-y @modelcontextprotocol/server-memory@2025.9.25"),
        );
        assert_eq!(
            p,
            Some(CommandPackage {
                registry: PackageRegistry::Npm,
                name: "@modelcontextprotocol/server-memory".into(),
                version: Some("2025.9.25".into()),
            })
        );
        let p = package_in_command("/usr/bin/uvx", &words("mcp-server-time"));
        assert_eq!(
            p.map(|p| (p.name, p.version)),
            Some(("mcp-server-time".into(), None))
        );
        let p = package_in_command(
            "uvx",
            &words("--from mcp-server-time==0.6.1 mcp-server-time"),
        );
        assert_eq!(p.and_then(|p| p.version), Some("0.6.1".into()));
        assert_eq!(
            package_in_command("npx", &words("-y x@latest")).and_then(|p| p.version),
            None
        );
        assert_eq!(package_in_command("node", &words("x.js")), None);
    }
}
