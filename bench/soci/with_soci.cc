// One query through SOCI's sqlite3 backend (build-time probe).
#include <soci/soci.h>
#include <soci/sqlite3/soci-sqlite3.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  soci::session sql(soci::sqlite3, std::string("db=") + (argc > 1 ? argv[1] : "va.db"));
  long long repo = 1, since = 1787356800, until = since + 86400;
  std::string title;
  soci::indicator ind;
  sql << "SELECT title FROM changes WHERE repo_id = ?1 AND merged_at >= ?2 AND merged_at < ?3 "
         "ORDER BY merged_at DESC LIMIT 1",
      soci::into(title, ind), soci::use(repo), soci::use(since), soci::use(until);
  std::printf("%s\n", ind == soci::i_ok ? title.c_str() : "");
}
