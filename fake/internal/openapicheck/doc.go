// Package openapicheck holds the tests that hold the fake to its OpenAPI documents with an
// independent validator. It lives apart from package fake so that the fake's importers do not
// build the validator and its dependencies.
package openapicheck
