//! A vault's parts (`sync_parts`, beside its blob): a vault written in parts keeps its manifest
//! as the blob's body and up to 64 named, encrypted parts beside it, so that a push sends only
//! the parts that changed. A write names every part its version references: those it does not
//! send must be stored already, those no longer named go, all in the write's transaction. A
//! write without parts drops them all; removing or expiring a vault drops them (the foreign
//! key's cascade). Parts count toward the vault's size and the storage quotas.

use std::collections::{HashMap, HashSet};

use rusqlite::{params, Connection, OptionalExtension};

use crate::store::StoreError;

/// The bytes of a blob's parts, as an SQL expression over a row of `sync_blobs` (unaliased).
pub(super) const PARTS_SIZE: &str = "coalesce((SELECT sum(length(p.body)) FROM sync_parts p
                                         WHERE p.blob_id = sync_blobs.id), 0)";

/// A write's body: the blob's new body (a manifest when it comes with parts) and its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    pub body: Vec<u8>,
    pub parts: Option<PartWrite>,
}

impl Upload {
    /// A body written whole (the vault then has no parts).
    pub fn whole(body: Vec<u8>) -> Upload {
        Upload { body, parts: None }
    }
}

/// The parts of a write: every name the new version references, and those sent with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartWrite {
    pub names: Vec<String>,
    pub sent: Vec<(String, Vec<u8>)>,
}

/// What a reader of one part finds before loading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartHead {
    /// No live vault has the id.
    NoVault,
    /// The vault lives but has no part of that name.
    NoPart,
    Found {
        version: i64,
        size: usize,
    },
}

/// The vault's size once `write` is done (its manifest of `manifest_len` bytes and every part
/// it names), or `Err(name)` with the first part it names that it neither sends nor has.
pub(super) fn planned_size(
    conn: &Connection,
    id: &str,
    manifest_len: usize,
    write: &PartWrite,
) -> Result<Result<usize, String>, StoreError> {
    let stored = stored_sizes(conn, id)?;
    let sent: HashMap<&str, usize> = write
        .sent
        .iter()
        .map(|(name, body)| (name.as_str(), body.len()))
        .collect();
    let mut size = manifest_len;
    for name in &write.names {
        let Some(part) = sent
            .get(name.as_str())
            .or_else(|| stored.get(name.as_str()))
        else {
            return Ok(Err(name.clone()));
        };
        size = size.saturating_add(*part);
    }
    Ok(Ok(size))
}

/// The sizes of the parts stored for blob `id`, by name.
fn stored_sizes(conn: &Connection, id: &str) -> Result<HashMap<String, usize>, StoreError> {
    let mut statement =
        conn.prepare("SELECT name, length(body) FROM sync_parts WHERE blob_id = ?1")?;
    let rows = statement.query_map([id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            usize::try_from(r.get::<_, i64>(1)?).unwrap_or(0),
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Leaves blob `id` with the parts `write` names (those sent stored, replacing any of the same
/// name; those not named removed), or with none when it was written whole. Runs in the write's
/// transaction, after `planned_size` found every named part.
pub(super) fn replace(
    conn: &Connection,
    id: &str,
    write: Option<&PartWrite>,
) -> Result<(), StoreError> {
    let Some(write) = write else {
        conn.execute("DELETE FROM sync_parts WHERE blob_id = ?1", [id])?;
        return Ok(());
    };
    let named: HashSet<&str> = write.names.iter().map(String::as_str).collect();
    for name in stored_sizes(conn, id)?.keys() {
        if !named.contains(name.as_str()) {
            conn.execute(
                "DELETE FROM sync_parts WHERE blob_id = ?1 AND name = ?2",
                params![id, name],
            )?;
        }
    }
    let mut insert = conn.prepare(
        "INSERT INTO sync_parts (blob_id, name, body) VALUES (?1, ?2, ?3)
         ON CONFLICT (blob_id, name) DO UPDATE SET body = excluded.body",
    )?;
    for (name, body) in &write.sent {
        insert.execute(params![id, name, body])?;
    }
    Ok(())
}

/// The size of the part `name` of blob `id`, if it has one.
pub(super) fn size_of(
    conn: &Connection,
    id: &str,
    name: &str,
) -> Result<Option<usize>, StoreError> {
    let size: Option<i64> = conn
        .query_row(
            "SELECT length(body) FROM sync_parts WHERE blob_id = ?1 AND name = ?2",
            params![id, name],
            |r| r.get(0),
        )
        .optional()?;
    Ok(size.map(|n| usize::try_from(n).unwrap_or(0)))
}

/// The part `name` of blob `id` while the blob is at `version` (one query, so the part is the
/// one that version references).
pub(super) fn body_of(
    conn: &Connection,
    id: &str,
    name: &str,
    version: i64,
) -> Result<Option<Vec<u8>>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT p.body FROM sync_parts p JOIN sync_blobs b ON b.id = p.blob_id
             WHERE b.id = ?1 AND b.version = ?2 AND p.name = ?3",
            params![id, version, name],
            |r| r.get(0),
        )
        .optional()?)
}
