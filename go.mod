module github.com/policygen/policygen

go 1.26.8
