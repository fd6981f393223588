//! The little DER reading a Sigstore bundle needs beyond what webpki does: a certificate's
//! extensions (Fulcio's OIDC claims) and the raw point of an EC public key (Rekor's). Only
//! definite lengths, as DER has; anything else is `None`.

/// One tag-length-value: its tag, its contents and what follows it.
pub(super) fn tlv(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = match first {
        0..=0x7f => (usize::from(first), rest),
        0x81..=0x84 => {
            let n = usize::from(first & 0x7f);
            let bytes = rest.get(..n)?;
            let len = bytes
                .iter()
                .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            (len, &rest[n..])
        }
        _ => return None,
    };
    let contents = rest.get(..len)?;
    Some((tag, contents, &rest[len..]))
}

/// The elements of a constructed value's contents.
pub(super) fn children(mut contents: &[u8]) -> Vec<(u8, &[u8])> {
    let mut out = Vec::new();
    while let Some((tag, value, rest)) = tlv(contents) {
        out.push((tag, value));
        contents = rest;
    }
    out
}

const SEQUENCE: u8 = 0x30;
const EXTENSIONS: u8 = 0xa3;
const OID: u8 = 0x06;
const OCTET_STRING: u8 = 0x04;
const BIT_STRING: u8 = 0x03;

/// A certificate's extensions, `(OID contents, extension value)`, from its DER.
pub(super) fn extensions(certificate: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let Some((SEQUENCE, cert, _)) = tlv(certificate) else {
        return Vec::new();
    };
    let Some((SEQUENCE, tbs, _)) = tlv(cert) else {
        return Vec::new();
    };
    let Some((_, list)) = children(tbs).into_iter().find(|(t, _)| *t == EXTENSIONS) else {
        return Vec::new();
    };
    let Some((SEQUENCE, list, _)) = tlv(list) else {
        return Vec::new();
    };
    children(list)
        .into_iter()
        .filter_map(|(_, ext)| {
            let parts = children(ext);
            let oid = parts.iter().find(|(t, _)| *t == OID)?.1;
            let value = parts.iter().find(|(t, _)| *t == OCTET_STRING)?.1;
            Some((oid.to_vec(), value.to_vec()))
        })
        .collect()
}

/// The key of a SubjectPublicKeyInfo (for EC keys, the uncompressed point).
pub(super) fn spki_key(spki: &[u8]) -> Option<&[u8]> {
    let (SEQUENCE, info, _) = tlv(spki)? else {
        return None;
    };
    let (_, bits) = children(info).into_iter().find(|(t, _)| *t == BIT_STRING)?;
    // The first byte counts unused bits: 0 for a key.
    bits.strip_prefix(&[0])
}

/// A DER string (UTF8String, IA5String, PrintableString) as text; other values as they are, when
/// they are text (Fulcio's oldest extensions hold raw text).
pub(super) fn text(value: &[u8]) -> Option<String> {
    match tlv(value) {
        Some((0x0c | 0x16 | 0x13, s, [])) => String::from_utf8(s.to_vec()).ok(),
        _ => String::from_utf8(value.to_vec()).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_short_and_long_and_truncated() {
        assert_eq!(
            tlv(&[0x04, 2, 7, 8, 9]),
            Some((0x04, &[7u8, 8][..], &[9u8][..]))
        );
        let long = [&[0x04, 0x81, 3][..], &[1, 2, 3]].concat();
        assert_eq!(tlv(&long).unwrap().1, &[1, 2, 3]);
        assert_eq!(tlv(&[0x04, 5, 1]), None);
        assert_eq!(tlv(&[0x04, 0x80]), None);
        assert_eq!(text(&[0x0c, 2, b'h', b'i']).as_deref(), Some("hi"));
        assert_eq!(text(b"raw").as_deref(), Some("raw"));
    }
}
