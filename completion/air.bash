# bash completion for air(1), the libair command line.
#
# Commands, subcommands and flags are read from the help of the `air` being
# completed (`air --help`, `air CMD [SUB] --help`), so the completion always
# matches that binary. It also completes:
#   air run -h config.<TAB>   workload YAML field paths (from `air run -h PATH`)
#   -p/--profile <TAB>        profiles of $DATABRICKS_CONFIG_FILE or ~/.databrickscfg
#   -o/--output <TAB>         text, json
#   flags taking a FILE or DIR, positional FILE/PATH arguments: file names
# Needs only bash; bash-completion loads it on demand as "air".

# Rows of the help block titled $1 (e.g. "Flags:") in the text $2.
_air_block() {
	local line inside=0
	while IFS= read -r line; do
		if ((inside)); then
			[[ -z ${line//[[:space:]]/} ]] && break
			printf '%s\n' "$line"
		elif [[ $line == "$1" ]]; then
			inside=1
		fi
	done <<<"$2"
}

# "NAME METAVAR" for every flag row of "Flags:" and "Global Flags:" in $1
# (METAVAR "-" for flags without a value); both spellings of -f, --file.
_air_flag_table() {
	local title row left long short meta
	for title in "Flags:" "Global Flags:"; do
		while IFS= read -r row; do
			left=${row#"${row%%[![:space:]]*}"}
			left=${left%%  *}
			[[ $left == -* ]] || continue
			short="" meta="-"
			if [[ $left == -?,\ * ]]; then
				short=${left%%,*}
				left=${left#*, }
			fi
			long=${left%% *}
			[[ $left == *\ * ]] && meta=${left#* }
			printf '%s %s\n' "$long" "$meta"
			[[ -n $short ]] && printf '%s %s\n' "$short" "$meta"
		done < <(_air_block "$title" "$1")
	done
}

# Words following "air $2" in the Usage: alternatives of the help $1.
_air_subcommands() {
	local line alt
	local -a toks
	while IFS= read -r line; do
		line=${line//|/$'\n'}
		while IFS= read -r alt; do
			read -ra toks <<<"$alt"
			[[ ${toks[0]} == air && ${toks[1]} == "$2" && ${toks[2]} =~ ^[a-z][a-z0-9-]*$ ]] &&
				printf '%s\n' "${toks[2]}"
		done <<<"$line"
	done < <(_air_block "Usage:" "$1")
}

# Profile names of the Databricks configuration file (not __settings__).
_air_profiles() {
	local file=${DATABRICKS_CONFIG_FILE:-~/.databrickscfg} line name
	[[ $file == "~/"* ]] && file=$HOME/${file#"~/"}
	[[ -r $file ]] || return 0
	while IFS= read -r line; do
		[[ $line =~ ^[[:space:]]*\[([^]]*)\] ]] || continue
		name=${BASH_REMATCH[1]}
		name=${name#"${name%%[![:space:]]*}"}
		name=${name%"${name##*[![:space:]]}"}
		[[ -n $name && $name != __settings__ ]] && printf '%s\n' "$name"
	done <"$file"
}

# Field names listed by `air run -h PATH` (an object's "Fields:" rows),
# without a workspace: the help of compute would look up the accelerator
# types a configured workspace offers, which a completion does not need.
_air_field_children() {
	local row
	while IFS= read -r row; do
		row=${row#"${row%%[![:space:]]*}"}
		printf '%s\n' "${row%% *}"
	done < <(_air_block "  Fields:" "$(env -u DATABRICKS_HOST -u DATABRICKS_CONFIG_PROFILE \
		DATABRICKS_CONFIG_FILE=/dev/null "$1" run -h "$2" 2>/dev/null)")
}

# COMPREPLY for a workload field path: children of the object before the
# last dot; a single object match becomes "PATH." to go on with.
_air_complete_field() {
	local air=$1 cur=$2 parent name
	local -a names=() matches=()
	if [[ $cur != *.* ]]; then
		[[ config == "$cur"* ]] && COMPREPLY=(config.)
		compopt -o nospace 2>/dev/null
		return
	fi
	parent=${cur%.*}
	while IFS= read -r name; do
		[[ -n $name ]] && names+=("$parent.$name")
	done < <(_air_field_children "$air" "$parent")
	mapfile -t matches < <(compgen -W "${names[*]}" -- "$cur")
	if ((${#matches[@]} == 1)) && [[ -n $(_air_field_children "$air" "${matches[0]}") ]]; then
		matches=("${matches[0]}.")
		compopt -o nospace 2>/dev/null
	fi
	COMPREPLY=("${matches[@]}")
}

# Fill the caller's meta_of (flag -> METAVAR or "-") from the help text $1.
_air_load_flags() {
	local name meta
	meta_of=()
	while read -r name meta; do
		meta_of[$name]=$meta
	done < <(_air_flag_table "$1")
}

_air() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev="" air=${COMP_WORDS[0]}
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	[[ $air == "~/"* ]] && air=$HOME/${air#"~/"}
	local top cmd="" sub="" help="" word meta i
	local -a cmds=() subs=() words=()
	local -A meta_of=()
	COMPREPLY=()

	top=$("$air" --help 2>/dev/null) || top=$("$air" --help 2>&1)
	while IFS= read -r word; do
		word=${word#"${word%%[![:space:]]*}"}
		word=${word%% *}
		[[ -n $word && $word != help ]] && cmds+=("$word")
	done < <(_air_block "Available Commands:" "$top")
	help=$top
	_air_load_flags "$top"

	# The command words before the cursor, skipping flags and their values.
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		if [[ $word == -* ]]; then
			meta=${meta_of[$word]-}
			[[ -n $meta && $meta != - && $word != *=* ]] && ((i++))
			continue
		fi
		if [[ -z $cmd ]]; then
			cmd=$word
			help=$("$air" "$cmd" --help 2>/dev/null)
			mapfile -t subs < <(_air_subcommands "$help" "$cmd")
		elif [[ -z $sub && " ${subs[*]} " == *" $word "* ]]; then
			sub=$word
			help=$("$air" "$cmd" "$sub" --help 2>/dev/null)
			subs=()
		else
			words+=("$word")
		fi
		_air_load_flags "$help"
	done

	case $prev in
	-p | --profile)
		mapfile -t COMPREPLY < <(compgen -W "$(_air_profiles)" -- "$cur")
		return
		;;
	-o | --output)
		mapfile -t COMPREPLY < <(compgen -W "text json" -- "$cur")
		return
		;;
	-h)
		if [[ $cmd == run && $cur != -* ]]; then
			_air_complete_field "$air" "$cur"
			return
		fi
		;;
	esac
	if [[ $prev == -* && $prev != *=* ]]; then
		meta=${meta_of[$prev]-}
		case $meta in
		- | "") ;;
		*DIR*) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
		*FILE* | *PATH*) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
		*) return ;;
		esac
	fi

	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "${!meta_of[*]}" -- "$cur")
	elif [[ -z $cmd ]]; then
		mapfile -t COMPREPLY < <(compgen -W "${cmds[*]} help" -- "$cur")
	elif [[ $cmd == help ]]; then
		((${#words[@]} == 0)) && mapfile -t COMPREPLY < <(compgen -W "${cmds[*]}" -- "$cur")
	elif ((${#subs[@]})) && ((${#words[@]} == 0)); then
		mapfile -t COMPREPLY < <(compgen -W "${subs[*]}" -- "$cur")
	elif [[ $(_air_block "Usage:" "$help") =~ \ [A-Z_]*(FILE|PATH)([^A-Z_=]|$) ]]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

complete -F _air air
