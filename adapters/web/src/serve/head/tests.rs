//! The heads of a connection followed byte by byte: what passes on to hyper,
//! split anywhere, and what is refused.

use super::{Heads, MAX_HEAD, Refused};

/// What `feed` passes on of `chunks` fed one after another, or the refusal.
fn passed(chunks: &[&[u8]]) -> Result<Vec<u8>, Refused> {
    let mut heads = Heads::default();
    let mut out = Vec::new();
    for chunk in chunks {
        heads.feed(chunk, &mut out)?;
    }
    Ok(out)
}

/// A head of exactly `len` bytes: a GET with one long header.
fn head_of(len: usize) -> Vec<u8> {
    let start = "GET / HTTP/1.1\r\nX-Long: ";
    let end = "\r\n\r\n";
    let mut head = start.as_bytes().to_vec();
    head.resize(len - end.len(), b'a');
    head.extend_from_slice(end.as_bytes());
    head
}

#[test]
fn a_head_passes_whole_and_its_body_by_its_length_split_anywhere() {
    let two = b"\r\nPOST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /b HTTP/1.1\nHost: x\n\n";
    let expected = &two[2..];
    for at in 0..two.len() {
        let (a, b) = two.split_at(at);
        assert_eq!(passed(&[a, b]).unwrap(), expected, "split at {at}");
    }
    let bytes: Vec<&[u8]> = two.chunks(1).collect();
    assert_eq!(passed(&bytes).unwrap(), expected);
}

#[test]
fn a_head_is_held_back_until_its_blank_line() {
    assert_eq!(passed(&[b"GET / HTTP/1.1\r\nHost: x\r\n"]).unwrap(), b"");
    assert_eq!(
        passed(&[b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab"]).unwrap(),
        b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab"
    );
}

#[test]
fn a_head_of_64_kib_passes_and_one_byte_more_is_refused() {
    let full = head_of(MAX_HEAD);
    assert_eq!(passed(&[&full]).unwrap(), full);
    let over = head_of(MAX_HEAD + 1);
    assert_eq!(passed(&[&over]), Err(Refused::TooLong));
    let (a, b) = over.split_at(MAX_HEAD);
    assert_eq!(passed(&[a, b]), Err(Refused::TooLong));
}

#[test]
fn heads_hyper_would_refuse_are_refused_here() {
    let refused = |head: &str| passed(&[head.as_bytes()]).unwrap_err();
    let malformed = |why: &str| Refused::Malformed(why.to_owned());
    let many = "X-Many: 1\r\n".repeat(101);
    assert_eq!(
        refused(&format!("GET / HTTP/1.1\r\n{many}\r\n")),
        Refused::TooManyHeaders
    );
    assert_eq!(
        refused("GET / HTTP/2.0\r\n\r\n"),
        malformed("invalid HTTP version")
    );
    assert_eq!(
        refused("G\u{1}T / HTTP/1.1\r\n\r\n"),
        malformed("invalid token")
    );
    assert_eq!(
        refused("GET / HTTP/1.1\r\nBad Name: 1\r\n\r\n"),
        malformed("invalid header name")
    );
    assert_eq!(
        refused("GET http://[::1 HTTP/1.1\r\n\r\n"),
        malformed("invalid request target")
    );
    assert_eq!(
        refused("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"),
        malformed("invalid Content-Length")
    );
    assert_eq!(
        refused("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n"),
        malformed("more than one Content-Length")
    );
    assert_eq!(
        refused("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
        Refused::NoLength
    );
}

#[test]
fn nothing_after_a_refused_head_passes() {
    let mut heads = Heads::default();
    let mut out = Vec::new();
    let refused = heads.feed(
        b"GET /a HTTP/1.1\r\n\r\nGET / HTTP/9\r\n\r\nGET /b HTTP/1.1\r\n\r\n",
        &mut out,
    );
    assert_eq!(
        refused,
        Err(Refused::Malformed("invalid HTTP version".to_owned()))
    );
    assert_eq!(out, b"GET /a HTTP/1.1\r\n\r\n");
}
