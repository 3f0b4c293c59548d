#!/bin/bash
# placeholder
exit 77
