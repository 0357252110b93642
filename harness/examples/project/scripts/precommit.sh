#!/bin/sh
# git_pre_check's check in the example project. It fails while a file named .precheck-fail
# exists (its content is the failure output), so the examples can show both outcomes.
if [ -f .precheck-fail ]; then
  cat .precheck-fail
  exit 1
fi
echo "all checks passed"
