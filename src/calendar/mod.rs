//! The calendar engine: ICS parsing, templates with regular expressions, and the writer.
//! Pure: no I/O, no async, no globals; bytes in, bytes out.
