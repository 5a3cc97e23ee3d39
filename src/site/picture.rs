//! What an uploaded picture must be before it is kept: PNG, JPEG, WebP or GIF (never SVG, which
//! can carry scripts), the type it says it is, at most [`MAX_PICTURE_BYTES`], and at most
//! [`MAX_PICTURE_SIDE`] pixels a side as its header says, read without decoding it (the server
//! never decodes images; this bound keeps every visitor's browser from decoding a huge one).

use crate::http::error::AppError;

/// The largest upload: the editor sends a 512 px square, a few tens of KiB.
pub const MAX_PICTURE_BYTES: usize = 512 * 1024;

/// The largest side, in pixels, a picture's header may declare.
pub const MAX_PICTURE_SIDE: usize = 4096;

/// The types an upload may have, as `Content-Type` names them.
const TYPES: [(&str, imagesize::ImageType); 4] = [
    ("image/png", imagesize::ImageType::Png),
    ("image/jpeg", imagesize::ImageType::Jpeg),
    ("image/webp", imagesize::ImageType::Webp),
    ("image/gif", imagesize::ImageType::Gif),
];

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PictureError {
    #[error("send the picture as PNG, JPEG, WebP or GIF (Content-Type image/png, image/jpeg, image/webp or image/gif)")]
    Type,
    #[error("the picture is empty")]
    Empty,
    #[error("the picture is not the {0} file its Content-Type says")]
    NotAsSaid(&'static str),
    #[error("the picture's size could not be read from its header")]
    Unreadable,
    #[error(
        "the picture is {width}×{height} pixels; at most {MAX_PICTURE_SIDE} pixels a side are taken"
    )]
    TooLarge { width: usize, height: usize },
}

impl From<PictureError> for AppError {
    fn from(error: PictureError) -> AppError {
        match error {
            PictureError::Type => AppError::UnsupportedMediaType(error.to_string()),
            _ => AppError::Invalid {
                field: "avatar".to_owned(),
                message: error.to_string(),
            },
        }
    }
}

/// The type an upload declares, if it is one that is taken (checked before its body is read).
pub fn accepted_type(content_type: Option<&str>) -> Result<&'static str, PictureError> {
    let essence = content_type
        .and_then(|v| v.split(';').next())
        .map(str::trim)
        .unwrap_or_default();
    TYPES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(essence))
        .map(|(name, _)| *name)
        .ok_or(PictureError::Type)
}

/// Checks the bytes of an upload declared as `declared` (one of [`accepted_type`]'s).
pub fn check(declared: &'static str, bytes: &[u8]) -> Result<(), PictureError> {
    if bytes.is_empty() {
        return Err(PictureError::Empty);
    }
    let expected = TYPES
        .iter()
        .find(|(name, _)| *name == declared)
        .map(|(_, kind)| *kind)
        .ok_or(PictureError::Type)?;
    let found = imagesize::image_type(bytes).map_err(|_| PictureError::NotAsSaid(declared))?;
    if found != expected {
        return Err(PictureError::NotAsSaid(declared));
    }
    let size = imagesize::blob_size(bytes).map_err(|_| PictureError::Unreadable)?;
    if size.width == 0 || size.height == 0 {
        return Err(PictureError::Unreadable);
    }
    if size.width > MAX_PICTURE_SIDE || size.height > MAX_PICTURE_SIDE {
        return Err(PictureError::TooLarge {
            width: size.width,
            height: size.height,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG's signature and IHDR chunk declaring `width`×`height` (the rest never read).
    pub fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
        bytes.extend_from_slice(&width.to_be_bytes());
        bytes.extend_from_slice(&height.to_be_bytes());
        bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
        bytes
    }

    #[test]
    fn only_the_four_raster_types_are_taken() {
        assert_eq!(accepted_type(Some("image/png")), Ok("image/png"));
        assert_eq!(accepted_type(Some("IMAGE/WEBP; q=1")), Ok("image/webp"));
        for refused in [Some("image/svg+xml"), Some("text/html"), None] {
            assert_eq!(accepted_type(refused), Err(PictureError::Type));
        }
    }

    #[test]
    fn dimensions_are_bounded_from_the_header() {
        assert_eq!(check("image/png", &png_header(512, 512)), Ok(()));
        assert_eq!(
            check("image/png", &png_header(20_000, 20_000)),
            Err(PictureError::TooLarge {
                width: 20_000,
                height: 20_000
            })
        );
        assert_eq!(
            check("image/jpeg", &png_header(10, 10)),
            Err(PictureError::NotAsSaid("image/jpeg"))
        );
        assert_eq!(
            check("image/png", b"<svg xmlns='http://www.w3.org/2000/svg'/>"),
            Err(PictureError::NotAsSaid("image/png"))
        );
        assert_eq!(check("image/gif", b""), Err(PictureError::Empty));
    }
}
