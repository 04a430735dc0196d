package dynamo

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// ItemSize is itemSize, for the unit meter of units_test.go.
func ItemSize(item map[string]types.AttributeValue) int { return itemSize(item) }
