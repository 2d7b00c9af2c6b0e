//! Hash kinds: what an index holds and how a password becomes its hash.

/// Which hashes an index holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashKind {
    /// SHA-1 of the password (20 bytes): the main HIBP corpus.
    Sha1,
    /// NTLM (MD4 of the UTF-16LE password, 16 bytes): HIBP's NTLM corpus.
    Ntlm,
}

impl HashKind {
    /// Bytes per hash.
    pub fn byte_len(self) -> usize {
        match self {
            HashKind::Sha1 => 20,
            HashKind::Ntlm => 16,
        }
    }

    /// Hex digits per hash.
    pub fn hex_len(self) -> usize {
        2 * self.byte_len()
    }

    /// The code stored in an index header.
    pub fn code(self) -> u8 {
        match self {
            HashKind::Sha1 => 1,
            HashKind::Ntlm => 2,
        }
    }

    /// The kind for a header code.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(HashKind::Sha1),
            2 => Some(HashKind::Ntlm),
            _ => None,
        }
    }

    /// The hash of a password.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_pwned::HashKind;
    /// let h = HashKind::Sha1.hash_password("password");
    /// assert_eq!(spool_pwned::to_hex(&h), "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8");
    /// ```
    pub fn hash_password(self, password: &str) -> Vec<u8> {
        use sha1::Digest as _;
        match self {
            HashKind::Sha1 => sha1::Sha1::digest(password.as_bytes()).to_vec(),
            HashKind::Ntlm => {
                let utf16: Vec<u8> = password.encode_utf16().flat_map(u16::to_le_bytes).collect();
                md4::Md4::digest(&utf16).to_vec()
            }
        }
    }
}

/// Upper-case hex, as HIBP writes it.
pub fn to_hex(bytes: &[u8]) -> String {
    faster_hex::hex_string_upper(bytes)
}
