#!/bin/sh
echo "forecast for $1"
