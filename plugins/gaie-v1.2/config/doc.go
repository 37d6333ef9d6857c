// Package config holds no code: its test loads the EndpointPickerConfigs
// Dynamo v1.0's graphs give the EPP through GAIE v1.2.1's loader, with the
// plugins the EPP main registers, and schedules a request with them.
package config
