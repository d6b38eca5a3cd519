// Package profread is what a profile format implements and reads with.
// A format is a [Format] entry: its Detect recognises the format's
// content from a [Content] (the decompressed bytes, their first lines, a
// sniff of a JSON document's top-level keys), and its Read turns a
// [Reading] (the bytes, the import's options, the state Detect left) into
// the profmodel.Model the Reading holds, saying what it read in the
// Reading's [Sampling]. Its errors are [Error]s that name the file and the
// line and say what to do.
//
// The helpers formats share live here too: lines (EachLine, Clip),
// indented trees (IndentPath, LeadingSpaces), and JSON read with errors at
// the line and column where a document is wrong (Reading.DecodeJSON,
// Reading.JSONError), numbers and ids that files write either as numbers
// or as strings (FlexInt, FlexFloat, FlexString).
//
// The formats themselves live in importer/native, importer/jsonprof and
// importer/calltree; the importer's registry lists them. profread imports
// profmodel and nothing else of proflab.
package profread
