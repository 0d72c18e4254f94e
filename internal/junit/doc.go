// Package junit writes test results as JUnit XML, the shape CI systems
// (GitHub Actions reporters, GitLab, Jenkins) read: one suite of test
// cases, each passed or failed with a message and details. Text in it is
// drawn as package visible draws it for a terminal, so no control, bidi or
// invisible character reaches a CI page raw.
//
// It does not decide what a case is (a fixture for seam check, an
// exchange for seam inspect --junit): its callers do.
package junit
