#include "mergelens/cli/cli.h"

int main(int argc, char** argv) {
  return mergelens::run_cli(argc, argv);
}
