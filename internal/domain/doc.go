// Package domain holds credentiald's domain types: what the services work on and return, and
// what the handlers translate into the contract's types, with the rules that belong to the
// values themselves (the status a client sees, for example). It imports nothing of the
// application: the store maps its rows to these types (as benbjohnson/wtf's root package is
// mapped to by its sqlite package), so neither the services nor the handlers need the store's
// own types to read a certificate, an attendee or a badge.
package domain
